import { imageAllowed } from "./image";

describe("imageAllowed: PGKEEPER_ALLOWED_IMAGES", () => {
  const allowed = ["registry.example.com/pg/", "localhost/pgkeeper/postgres"];
  it.each<[string, readonly string[], boolean]>([
    ["anything/at:all", [], true], // off by default
    ["registry.example.com/pg/postgres:15", allowed, true],
    ["registry.example.com/pg/team/postgres@sha256:" + "a".repeat(64), allowed, true],
    ["registry.example.com/pg-evil/postgres:15", allowed, false], // a prefix of a name is not a path
    ["localhost/pgkeeper/postgres:17", allowed, true],
    ["localhost/pgkeeper/postgres@sha256:" + "b".repeat(64), allowed, true],
    ["localhost/pgkeeper/postgres-evil:17", allowed, false],
    ["localhost/pgkeeper/postgres/x:17", allowed, false], // a repository, not a path
    ["docker.io/library/postgres:15", allowed, false],
  ])("%s with %j: %p", (image, list, expected) => {
    expect(imageAllowed(image, list)).toBe(expected);
  });
});
