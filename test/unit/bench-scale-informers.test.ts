/** bench:scale waits for the informers the operator runs, counted from the code, not by hand. */
import { BACKUP_KIND_KEY, CHILD_KINDS } from "../../capabilities/database/api/kinds";
import { INFORMER_KINDS, unsyncedKinds } from "../../bench/scale/informers";

const synced = (kinds: readonly string[]) =>
  kinds.map(k => `pgkeeper_informer_synced{kind="${k}"} 1`).join("\n");

describe("bench/scale informers", () => {
  it("are one per child kind and one for Backups", () => {
    expect(INFORMER_KINDS).toHaveLength(CHILD_KINDS.length + 1);
    expect(INFORMER_KINDS).toContain("v1/Secret");
    expect(INFORMER_KINDS).toContain(BACKUP_KIND_KEY);
  });

  it.each<[string, string, string[]]>([
    ["all synced", synced(INFORMER_KINDS), []],
    ["none synced", "# HELP pgkeeper_informer_synced …", [...INFORMER_KINDS]],
    [
      "all but Backups",
      synced(INFORMER_KINDS.filter(k => k !== BACKUP_KIND_KEY)),
      [BACKUP_KIND_KEY],
    ],
    [
      "a kind at 0",
      synced(INFORMER_KINDS).replace('kind="v1/Pod"} 1', 'kind="v1/Pod"} 0'),
      ["v1/Pod"],
    ],
  ])("%s", (_what, scrape, missing) => expect(unsyncedKinds(scrape)).toEqual(missing));
});
