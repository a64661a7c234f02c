import { input } from "../../../test/unit/builder-fixtures";
import type { UpgradeStatus } from "./decide";
import { dataVersionOf, runtimeSpec } from "./runtime";

const wanted = input({ version: "17" }).spec;
const imageFor = (v: string): string => `default:${v}`;
const upgrade = (over: Partial<UpgradeStatus> = {}): UpgradeStatus => ({
  from: "15",
  to: "17",
  fromImage: "mine:15",
  phase: "Upgrading",
  ...over,
});

describe("the data's major", () => {
  it.each<[string, string | undefined, { version?: string }, string]>([
    ["recorded in status", "15", { version: "17" }, "15"],
    ["what the StatefulSet runs, before status records it", undefined, { version: "15" }, "15"],
    ["a new Database: the spec's", undefined, {}, "17"],
  ])("%s", (_name, recorded, running, expected) => {
    expect(dataVersionOf(recorded, running, wanted)).toBe(expected);
  });
});

describe("runtimeSpec", () => {
  it("is the spec once the data is on its major", () => {
    expect(runtimeSpec(wanted, "17", upgrade(), {}, imageFor)).toBe(wanted);
  });

  it.each<[string, UpgradeStatus | undefined, { image?: string; version?: string }, string]>([
    [
      "the image recorded when the upgrade started",
      upgrade(),
      { image: "x:15", version: "15" },
      "mine:15",
    ],
    [
      "before that, the image the StatefulSet runs",
      undefined,
      { image: "x:15", version: "15" },
      "x:15",
    ],
    ["nothing known: the operator's image of the data's major", undefined, {}, "default:15"],
  ])("keeps the data's major until it is converted: %s", (_name, u, running, image) => {
    const spec = runtimeSpec(wanted, "15", u, running, imageFor);
    expect(spec.version).toBe("15");
    expect(spec.image).toBe(image);
    expect(spec.instances).toBe(wanted.instances);
  });
});
