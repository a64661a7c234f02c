import { denialReview, shapeMessage, tooLargeMessage, uidFromPrefix, uidOf } from "./review-denial";

describe("uidFromPrefix", () => {
  it.each([
    [
      "the apiserver's order",
      '{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","kind":',
      "705ab4f5-6393-11e8-b7cc-42010a800002",
    ],
    ["spaces", '{ "request" : { "uid" : "u-1" , "x":1', "u-1"],
    [
      "request.uid preferred over an earlier object uid",
      '{"x":{"uid":"object"},"request":{"uid":"req"}',
      "req",
    ],
    ["another order: the first uid", '{"request":{"kind":{},"uid":"late"}', "late"],
    ["no uid", '{"request":{"kind":', undefined],
    ["a cut-off uid", '{"request":{"uid":"abc', undefined],
    ["an escaped quote is not a uid", '{"request":{"uid":"a\\"b"}', undefined],
  ])("%s", (_, prefix, expected) => {
    expect(uidFromPrefix(prefix)).toBe(expected);
  });
});

describe("uidOf", () => {
  it.each([
    [{ request: { uid: "u" } }, "u"],
    [{ request: { uid: 7 } }, undefined],
    [{ request: null }, undefined],
    [{}, undefined],
    [[], undefined],
    ["text", undefined],
    [null, undefined],
  ])("%j", (review, expected) => {
    expect(uidOf(review)).toBe(expected);
  });
});

describe("the messages", () => {
  it("say how large, and the limit", () => {
    expect(tooLargeMessage(5 * 1024 * 1024, 2 * 1024 * 1024, true)).toMatch(
      /^the admission request is 5\.0 MiB; pgkeeper admits requests of at most 2\.0 MiB/,
    );
    expect(tooLargeMessage(16 * 1024 * 1024 + 1, 2 * 1024 * 1024, false)).toMatch(
      /^the admission request is more than 16\.0 MiB;/,
    );
  });

  it("say which shape limit, and its value", () => {
    expect(shapeMessage({ kind: "depth", limit: 64 })).toMatch(/deeper than 64 levels/);
    expect(shapeMessage({ kind: "nodes", limit: 100000 })).toMatch(/more than 100000 values/);
  });

  it("form a denial the apiserver accepts", () => {
    expect(denialReview("u", 413, "too large")).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "u", allowed: false, status: { code: 413, message: "too large" } },
    });
  });
});
