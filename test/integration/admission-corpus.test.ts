/**
 * Issue 14: the admission corpus (test/admission-corpus) through the real apiserver with the
 * operator's webhooks up. Every invalid spec must be refused with the field named, none may end
 * in a 5xx, every valid spec must be admitted. Creates are server-side dry runs (Pepr's webhooks
 * declare sideEffects None, so they are called on dry runs): nothing is stored but the update
 * cases' originals and the recovery source.
 */
import { INVALID, InvalidCase, VALID } from "../admission-corpus";
import {
  Outcome,
  retryUnsettled,
  RunContext,
  runCases,
  UNREACHABLE,
  webhookJudges,
} from "../admission-corpus/run";
import { database, operatorSuite } from "./harness/fixtures";
import { create, get } from "./harness/kubectl";
import { env } from "./harness/env";
import { Operator } from "./harness/operator";
import { waitFor } from "./harness/wait";

const operator = new Operator("admission-corpus");
let ns: string;
operatorSuite(operator, "corpus", created => (ns = created));

const SECRET = "corpus-s3";
const SOURCE = "source";

/** The server failing rather than judging the spec (the webhook answered 5xx or could not). */
const SERVER_ERROR = /InternalError|Internal error|failed calling webhook|Action failed/;

/**
 * Whether a refusal names `field`. The apiserver writes a map entry as `parameters.work_mem`,
 * the webhook as `parameters[work_mem]`: either names it.
 */
const names = (message: string, field: string): boolean =>
  message.includes(field) || message.includes(field.replace(/\[([^\]0-9][^\]]*)\]/g, ".$1"));

const refusedWithField = (o: Outcome, c: InvalidCase): boolean =>
  !o.admitted && names(o.message, c.field) && !SERVER_ERROR.test(o.message);

let invalid: Outcome[] = [];
let valid: Outcome[] = [];

async function runAll(ctx: RunContext): Promise<number> {
  const ready = (): Promise<void> =>
    waitFor("the webhook to judge specs again", () => webhookJudges(ctx), {
      timeoutMs: 180_000,
      intervalMs: 1000,
    }).then(() => undefined);
  await ready();
  const first = await runCases(ctx, INVALID);
  const firstValid = await runCases(ctx, VALID);
  const retriedInvalid = await retryUnsettled(ctx, INVALID, first, {
    // Only a webhook that could not be reached is asked again. An invalid spec admitted while
    // the webhook judged (ready() saw it do so before the run) is a gap in admission, not bad
    // luck: it stays admitted, and the test below fails on it (issue 28).
    unsettled: o => UNREACHABLE.test(o.message),
    ready,
  });
  const retriedValid = await retryUnsettled(ctx, VALID, firstValid, {
    unsettled: o => !o.admitted && UNREACHABLE.test(o.message),
    ready,
  });
  invalid = retriedInvalid.outcomes;
  valid = retriedValid.outcomes;
  return retriedInvalid.reruns + retriedValid.reruns;
}

beforeAll(async () => {
  create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: SECRET, namespace: ns },
    stringData: { accessKeyId: "corpus", secretAccessKey: "corpus-secret" },
  });
  create(database(ns, SOURCE, { version: "15", storage: { size: "1Gi" } }));
  const uid = get("database", ns, SOURCE)?.metadata.uid;
  if (!uid) throw new Error("the recovery source Database has no uid");
  const ctx: RunContext = {
    kubectl: env.kubectl,
    kubeconfig: env.kubeconfig,
    namespace: ns,
    values: { NS: ns, SOURCE, SOURCE_UID: uid, SECRET },
  };
  const started = Date.now();
  const reruns = await runAll(ctx);
  const named = invalid.filter((o, i) => refusedWithField(o, INVALID[i])).length;
  const serverErrors = [...invalid, ...valid].filter(o => SERVER_ERROR.test(o.message)).length;
  // The figures issue 14 asks for, printed whatever the assertions say.
  console.log(
    [
      `admission corpus (${Math.round((Date.now() - started) / 1000)} s, ${reruns} reruns):`,
      `  invalid refused with the field named: ${named}/${INVALID.length}`,
      `  invalid admitted: ${invalid.filter(o => o.admitted).length}`,
      `  valid admitted: ${valid.filter(o => o.admitted).length}/${VALID.length}`,
      `  5xx: ${serverErrors}`,
    ].join("\n"),
  );
}, 900_000);

const shown = (o: Outcome): string => (o.admitted ? "ADMITTED" : o.message.trim().slice(0, 500));

it("refuses every invalid spec", () => {
  const admitted = invalid.flatMap((o, i) => (o.admitted ? [`${o.id} [${INVALID[i].field}]`] : []));
  expect(admitted).toEqual([]);
});

it("names the expected field in every refusal", () => {
  const unnamed = invalid
    .map((o, i) => ({ o, c: INVALID[i] }))
    .filter(({ o, c }) => !o.admitted && !names(o.message, c.field));
  expect(unnamed.map(({ o, c }) => `${o.id} [${c.field}]: ${shown(o)}`)).toEqual([]);
});

it("never answers with a server error", () => {
  const errors = [...invalid, ...valid].filter(o => SERVER_ERROR.test(o.message));
  expect(errors.map(o => `${o.id}: ${shown(o)}`)).toEqual([]);
});

it("admits every valid spec", () => {
  expect(valid.filter(o => !o.admitted).map(o => `${o.id}: ${shown(o)}`)).toEqual([]);
});
