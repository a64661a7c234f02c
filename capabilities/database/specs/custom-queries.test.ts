import { customQueries, customQueriesCondition, QueriesSource } from "./custom-queries";

const ref = (name: string, key = "queries.yaml") => ({ name, key });
const GOOD = `
app_orders:
  query: "SELECT count(*) AS total FROM orders"
  metrics:
    - total:
        usage: "GAUGE"
        description: "Orders"
`;
const source = (name: string, text: string | undefined): QueriesSource => ({
  ref: ref(name),
  text,
});

describe("customQueries", () => {
  it("takes a well-formed source whole", () => {
    const result = customQueries([source("a", GOOD)], ["pg_database"]);
    expect(Object.keys(result.queries)).toEqual(["app_orders"]);
    expect(result.problems).toEqual([]);
    expect(result.loaded).toEqual([{ ref: ref("a"), count: 1 }]);
  });

  it.each<[string, string | undefined, RegExp]>([
    ["missing", undefined, /a\/queries.yaml: not found/],
    ["not YAML", "a: [", /not YAML/],
    ["a list", "- a\n- b\n", /holds no queries/],
    ["empty", "", /holds no queries/],
    [
      "a bad name",
      `"bad-name":\n  query: SELECT 1\n  metrics: [{one: {usage: GAUGE}}]\n`,
      /"bad-name" is not a metric name/,
    ],
    ["no query", "q:\n  metrics: [{one: {usage: GAUGE}}]\n", /"q" has no query/],
    ["no metrics", "q:\n  query: SELECT 1\n", /"q" has no metrics/],
    [
      "a bad usage",
      "q:\n  query: SELECT 1\n  metrics: [{one: {usage: SUM}}]\n",
      /column "one" has usage "SUM"/,
    ],
    [
      "two columns in one entry",
      "q:\n  query: SELECT 1\n  metrics: [{one: {usage: GAUGE}, two: {usage: GAUGE}}]\n",
      /map of one column/,
    ],
    [
      "pgkeeper's name",
      "pg_database:\n  query: SELECT 1\n  metrics: [{one: {usage: GAUGE}}]\n",
      /"pg_database" is already defined/,
    ],
    [
      "a name twice in one file",
      "q:\n  query: SELECT 1\n  metrics: [{one: {usage: GAUGE}}]\nq:\n  query: SELECT 2\n  metrics: [{one: {usage: GAUGE}}]\n",
      /not YAML: duplicated mapping key/,
    ],
  ])("leaves out a source that is %s, naming it and why", (_, text, why) => {
    const result = customQueries([source("a", text), source("b", GOOD)], ["pg_database"]);
    expect(result.problems).toEqual([expect.stringMatching(why)]);
    // The other source is still served.
    expect(Object.keys(result.queries)).toEqual(["app_orders"]);
    expect(result.loaded).toEqual([{ ref: ref("b"), count: 1 }]);
  });

  it("leaves out the later of two sources that define the same name", () => {
    const result = customQueries([source("a", GOOD), source("b", GOOD)], []);
    expect(result.problems).toEqual([
      'b/queries.yaml: "app_orders" is already defined (pgkeeper\'s or above)',
    ]);
    expect(result.loaded.map(l => l.ref.name)).toEqual(["a"]);
  });
});

describe("customQueriesCondition", () => {
  it("is True naming what loaded", () => {
    expect(customQueriesCondition(customQueries([source("a", GOOD)], []))).toEqual({
      type: "CustomQueries",
      status: "True",
      reason: "Loaded",
      message: "Queries loaded: 1 from a/queries.yaml",
    });
  });

  it("is False naming each source left out, and what still loaded", () => {
    const c = customQueriesCondition(
      customQueries([source("gone", undefined), source("a", GOOD)], []),
    );
    expect(c.status).toBe("False");
    expect(c.reason).toBe("QueriesLeftOut");
    expect(c.message).toBe(
      "Left out, pgkeeper's metrics and the other queries still served: gone/queries.yaml: not found (the ConfigMap or its key). Loaded: 1 from a/queries.yaml",
    );
  });
});
