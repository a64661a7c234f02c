/**
 * The webhook server under hostile requests (issue 14): an oversized body, a nesting deep enough
 * to overflow a recursive copy, a sender that never stops. Each gets a denial (or is cut off),
 * and 50 ordinary requests sent at the same moment are all answered correctly, in time. Sent
 * straight to the webhook (as a fuzzer or a misbehaving client would) and through the apiserver
 * (as a user would).
 */
import { Operator } from "./harness/operator";
import { get, kubectlAsync } from "./harness/kubectl";
import { database, operatorSuite } from "./harness/fixtures";
import {
  costlyReview,
  deeplyNestedReview,
  ordinaryDatabase,
  paddedReview,
  postToWebhook,
  review,
  WebhookTarget,
  webhookTarget,
  WebhookReply,
} from "./harness/admission-review";
import { dump } from "js-yaml";

const operator = new Operator("webhook-robustness");
let ns: string;

operatorSuite(operator, "whr", created => (ns = created));

/** The apiserver's patience with our webhooks (Pepr registers timeoutSeconds: 10). */
const WEBHOOK_TIMEOUT_MS = 10_000;
const post = (target: WebhookTarget, body: string) =>
  postToWebhook(target, body, WEBHOOK_TIMEOUT_MS);

const responseOf = (reply: WebhookReply) =>
  JSON.parse(reply.text).response as {
    uid: string;
    allowed: boolean;
    patch?: string;
    status?: { code: number; message: string };
  };

describe("straight to the webhook server", () => {
  it("answers 50 ordinary reviews correctly and in time while hostile ones arrive", async () => {
    const mutate = webhookTarget("mutating");
    const validate = webhookTarget("validating");
    const hostile = [
      post(mutate, paddedReview("h-large", ns, 8 * 1024 * 1024)),
      post(mutate, deeplyNestedReview("h-deep", ns, 200_000)),
      post(validate, deeplyNestedReview("h-deep-v", ns, 5_000)),
      post(mutate, paddedReview("h-huge", ns, 40 * 1024 * 1024)),
      post(validate, costlyReview("h-costly", ns)),
    ];
    const ordinary = Array.from({ length: 50 }, (_, i) =>
      post(i % 2 ? validate : mutate, review(`o-${i}`, ordinaryDatabase(ns, `ordinary-${i}`))),
    );

    const replies = await Promise.all(ordinary);
    replies.forEach((reply, i) => {
      expect({ i, status: reply.status }).toEqual({ i, status: 200 });
      expect(responseOf(reply)).toMatchObject({ uid: `o-${i}`, allowed: true });
      expect(reply.ms).toBeLessThan(WEBHOOK_TIMEOUT_MS);
    });
    // The mutating answers carry the defaults, so Pepr really processed them.
    const patch = Buffer.from(responseOf(replies[0]).patch ?? "", "base64").toString();
    expect(patch).toContain("failover");

    const [large, deep, deepValidate, huge, costly] = await Promise.all(hostile);
    expect(responseOf(large)).toMatchObject({
      uid: "h-large",
      allowed: false,
      status: {
        message: expect.stringMatching(/is 8\.0 MiB; pgkeeper admits .* at most 2\.0 MiB/),
      },
    });
    for (const [reply, uid] of [
      [deep, "h-deep"],
      [deepValidate, "h-deep-v"],
    ] as const)
      expect(responseOf(reply)).toMatchObject({
        uid,
        allowed: false,
        status: { message: expect.stringMatching(/deeper than 64 levels/) },
      });
    expect(responseOf(huge)).toMatchObject({ uid: "h-huge", allowed: false });
    expect(responseOf(costly)).toMatchObject({ uid: "h-costly", allowed: false });
  }, 120_000);
});

describe("through the apiserver", () => {
  it("refuses a Database over the size limit with the reason, not a webhook failure", async () => {
    const db = database(ns, "oversized") as { metadata: Record<string, unknown> };
    db.metadata.annotations = { note: "x".repeat(Math.round(2.5 * 1024 * 1024)) };
    const ordinary = Array.from({ length: 10 }, (_, i) =>
      kubectlAsync(["create", "-f", "-"], dump(ordinaryDatabase(ns, `ordinary-${100 + i}`))),
    );
    const oversized = await kubectlAsync(["create", "-f", "-"], JSON.stringify(db));

    expect(oversized.code).not.toBe(0);
    expect(oversized.stderr).toMatch(/denied the request: the admission request is 2\.5 MiB/);
    expect(oversized.stderr).not.toMatch(/Internal error|failed calling webhook/);
    expect(get("database", ns, "oversized")).toBeUndefined();

    for (const result of await Promise.all(ordinary)) expect(result.stderr).toBe("");
  }, 120_000);
});
