import { DB_NAME, input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { ownerReference } from "./meta";
import {
  buildAppSecret,
  buildSuperuserSecret,
  credentialValues,
  SECRET_KEYS,
  SECRET_TYPE,
} from "./secrets";

const decode = (data: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(
    Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
  );

const HOST = `${DB_NAME}-rw.${NAMESPACE}.svc`;
const builders = [
  ["superuser", buildSuperuserSecret, `${DB_NAME}-superuser`, "postgres", "postgres"],
  ["app", buildAppSecret, `${DB_NAME}-app`, "app", "app"],
] as const;

describe.each(builders)("%s Secret", (_, build, name, username, dbname) => {
  const secret = build(input(), "s3cret", "CA PEM");
  const values = decode(secret.data);

  it.each([
    ["apiVersion", "v1"],
    ["kind", "Secret"],
    ["metadata.name", name],
    ["metadata.namespace", NAMESPACE],
    ["type", SECRET_TYPE],
  ])("sets %s", (path, expected) => {
    expect(secret).toHaveProperty(path, expected);
  });

  it("carries the common labels and one owner reference to the Database", () => {
    expect(secret.metadata.labels["pgkeeper.dev/database"]).toBe(DB_NAME);
    expect(secret.metadata.ownerReferences).toEqual([ownerReference(input().db)]);
  });

  it("uses data, never stringData (write-only, would always differ)", () => {
    expect(secret.stringData).toBeUndefined();
    expect(Object.keys(secret.data ?? {}).sort()).toEqual([...SECRET_KEYS].sort());
  });

  it.each([
    ["username", username],
    ["password", "s3cret"],
    ["host", HOST],
    ["port", "5432"],
    ["dbname", dbname],
    ["uri", `postgresql://${username}:s3cret@${HOST}:5432/${dbname}?sslmode=verify-full`],
    [
      "jdbc-uri",
      `jdbc:postgresql://${HOST}:5432/${dbname}?user=${username}&password=s3cret&sslmode=verify-full`,
    ],
    ["pgpass", `${HOST}:5432:${dbname}:${username}:s3cret\n`],
    ["ca.crt", "CA PEM"],
  ])("has %s", (key, expected) => {
    expect(values[key]).toBe(expected);
  });
});

describe("passwords with special characters", () => {
  const cred = (password: string) =>
    credentialValues({ username: "app", password, host: HOST, dbname: "app", serverCa: "" });

  it.each(["p@ss:w/rd", "a?b#c%d", "x&y=z+ ", "quote'\"back\\slash", "ünïcødé€", "[]{}|^`~!$*()"])(
    "round-trips %p through the URI",
    password => {
      const uri = new URL(cred(password).uri);
      expect(decodeURIComponent(uri.password)).toBe(password);
      expect(uri.username).toBe("app");
      expect(uri.hostname).toBe(HOST);
      expect(uri.pathname).toBe("/app");
    },
  );

  it.each(["p@ss:w/rd", "a?b#c%d&e=f+g h"])("round-trips %p through the JDBC URI", password => {
    const query = cred(password)["jdbc-uri"].split("?")[1];
    expect(new URLSearchParams(query).get("password")).toBe(password);
  });

  it.each([
    ["a:b", "a\\:b"],
    ["a\\b", "a\\\\b"],
    ["plain", "plain"],
  ])("escapes %p in the pgpass line", (password, escaped) => {
    expect(cred(password).pgpass).toBe(`${HOST}:5432:app:app:${escaped}\n`);
  });

  it("stores the password itself unencoded", () => {
    expect(cred("p@ss:w/rd").password).toBe("p@ss:w/rd");
  });
});
