import { NotLeaderError } from "../lib/fence";
import { INSTANCE_SQL_METHODS, guardSql } from "./guard-sql";
import type { InstanceSql, InstanceTarget } from "./types";

const target: InstanceTarget = { host: "10.0.0.1", port: 5432, password: "" };

/** An InstanceSql that records which methods reached it. */
function recording(): { sql: InstanceSql; reached: string[] } {
  const reached: string[] = [];
  const sql = Object.fromEntries(
    Object.keys(INSTANCE_SQL_METHODS).map(method => [
      method,
      async () => {
        reached.push(method);
        return method === "applyParameters"
          ? { changed: false, pendingRestart: [], notApplied: [] }
          : method === "probeInstance"
            ? {}
            : true;
      },
    ]),
  ) as unknown as InstanceSql;
  return { sql, reached };
}

const calls: Record<keyof InstanceSql, (sql: InstanceSql) => Promise<unknown>> = {
  probeInstance: sql => sql.probeInstance(target, 1000),
  acceptsPassword: sql => sql.acceptsPassword(target),
  promote: sql => sql.promote(target, 60),
  checkpoint: sql => sql.checkpoint(target),
  setRolePassword: sql => sql.setRolePassword(target, "app", "SCRAM-SHA-256$4096:x"),
  writePassfile: sql => sql.writePassfile(target),
  requestRepair: sql => sql.requestRepair(target),
  reloadConfiguration: sql => sql.reloadConfiguration(target),
  ensureRoles: sql => sql.ensureRoles(target),
  applyParameters: sql => sql.applyParameters(target, { work_mem: "8MB" }),
};

describe("guardSql", () => {
  it.each(Object.entries(INSTANCE_SQL_METHODS))(
    "%s (%s): reaches PostgreSQL only while leading, unless it only reads",
    async (method, access) => {
      const { sql, reached } = recording();
      let leading = true;
      const guarded = guardSql(sql, () => leading);
      const call = calls[method as keyof InstanceSql];
      await call(guarded);
      leading = false;
      if (access === "read") await expect(call(guarded)).resolves.toBeDefined();
      else await expect(call(guarded)).rejects.toBeInstanceOf(NotLeaderError);
      expect(reached).toEqual(access === "read" ? [method, method] : [method]);
    },
  );

  it("wraps every method of the interface", () => {
    const guarded = guardSql(recording().sql, () => true);
    expect(Object.keys(guarded).sort()).toEqual(Object.keys(calls).sort());
  });
});
