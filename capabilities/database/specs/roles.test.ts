import { FILE_REPAIR_MARKER, MONITOR_USER, REPLICATION_USER } from "./layout";
import {
  CREATE_MISSING_ROLES,
  CREATE_ROLES,
  ENSURE_ROLES_PSQL,
  FILES_CHANGED_QUERY,
  REPAIR_BLOCK,
  ROLES_SETUP,
  ROLES_VERSION,
} from "./roles";
import { ROLES_SQL } from "./scripts/sql";

describe("the roles as the operator runs them (scripts/roles.sql)", () => {
  const statements = ROLES_SQL.split("\n").filter(l => l.trim() !== "" && !l.startsWith("--"));

  it("are roles.sql's statements, all of them, in order", () => {
    expect(CREATE_ROLES).toEqual(statements);
    expect(ENSURE_ROLES_PSQL).toBe(statements.join("\n"));
    expect(CREATE_ROLES).toEqual([`${CREATE_MISSING_ROLES};`, ...ROLES_SETUP]);
  });

  it("one statement each, whole (the operator runs them one at a time)", () => {
    for (const statement of CREATE_ROLES) expect(statement).toMatch(/^[A-Z][^\n]*;$/);
  });

  it("creates each role only where it is missing, in one statement", () => {
    for (const role of [REPLICATION_USER, MONITOR_USER])
      expect(CREATE_MISSING_ROLES).toContain(
        `IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role};`,
      );
    expect(CREATE_MISSING_ROLES).not.toContain(";$");
  });

  it("says which version ran, last", () => {
    expect(ROLES_SETUP.at(-1)).toBe(`COMMENT ON SCHEMA pgkeeper IS '${ROLES_VERSION}';`);
  });

  it("takes the superuser's repair request and files check from the functions' bodies", () => {
    expect(REPAIR_BLOCK).toMatch(
      /^DO \$repair\$BEGIN IF NOT pg_is_in_recovery\(\).* END\$repair\$$/,
    );
    expect(REPAIR_BLOCK).toContain(`current_setting('data_directory') || '/${FILE_REPAIR_MARKER}'`);
    expect(FILES_CHANGED_QUERY).toMatch(/^SELECT max\(m\) >= date_trunc\('second', .* AS files$/);
  });
});
