import { KubeObject } from "../cluster/cluster";
import {
  ListPage,
  ListScope,
  Phase,
  Reflector,
  ReflectorSource,
  ReflectorTimings,
  StreamEvent,
} from "./reflector";

const obj = (name: string, rv: string, labels: Record<string, string> = { keep: "yes" }) =>
  ({
    metadata: { namespace: "ns", name, uid: `uid-${name}`, resourceVersion: rv, labels },
  }) as KubeObject;

const other = (name: string, rv: string) => obj(name, rv, { keep: "no" });

type WatchScript = { events: StreamEvent[]; error?: Error; wait?: Promise<void> } | "hang";

/** A promise and its resolver: a step the test releases. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>(resolve => (open = resolve));
  return { promise, open };
}

/** A source answering lists and watches from scripts; a watch with no script waits for abort. */
class ScriptedSource implements ReflectorSource {
  readonly lists: ListScope[] = [];
  readonly watches: { resourceVersion: string; timeoutSeconds: number }[] = [];
  constructor(
    private readonly listAnswers: (ListPage | Error)[],
    private readonly watchScripts: WatchScript[],
    private readonly revisitAnswers: (ListPage | Error)[] = [],
    private readonly beforeRevisitAnswer?: () => Promise<void>,
  ) {}

  async list(scope: ListScope): Promise<ListPage> {
    this.lists.push(scope);
    const revisit = scope.namespace !== undefined;
    if (revisit && this.beforeRevisitAnswer) await this.beforeRevisitAnswer();
    const answer = (revisit ? this.revisitAnswers : this.listAnswers).shift();
    if (answer === undefined) throw new Error("no list answer scripted");
    if (answer instanceof Error) throw answer;
    return answer;
  }

  watch(from: { resourceVersion: string; timeoutSeconds: number }, signal: AbortSignal) {
    this.watches.push(from);
    const script = this.watchScripts.shift() ?? "hang";
    return (async function* () {
      if (script === "hang") {
        await new Promise(resolve => signal.addEventListener("abort", resolve, { once: true }));
        return;
      }
      if (script.wait) await script.wait;
      for (const event of script.events) yield event;
      if (script.error) throw script.error;
    })();
  }
}

const TIMINGS: ReflectorTimings = {
  retryMs: 100,
  maxRetryMs: 350,
  relistMs: 60_000,
  watchSeconds: () => 300,
  failureMax: 4,
};

const labelledKeep = (o: KubeObject) => o.metadata?.labels?.keep === "yes";

function harness(
  source: ScriptedSource,
  timings: Partial<ReflectorTimings> = {},
  keep: (o: KubeObject) => boolean = labelledKeep,
) {
  const events: [Phase, string, string][] = [];
  const failures: number[] = [];
  const sleeps: number[] = [];
  let listed = 0;
  let gaveUp: unknown;
  let clock = 0;
  const reflector = new Reflector({
    source,
    keep,
    onEvent: (phase, o) =>
      events.push([phase, o.metadata?.name ?? "", o.metadata?.resourceVersion ?? ""]),
    onListed: () => listed++,
    onFailure: (_, n) => failures.push(n),
    onGiveUp: err => (gaveUp = err),
    timings: { ...TIMINGS, ...timings },
    sleep: async ms => {
      sleeps.push(ms);
    },
    now: () => clock,
  });
  return {
    reflector,
    events,
    failures,
    sleeps,
    listed: () => listed,
    gaveUp: () => gaveUp,
    advance: (ms: number) => (clock += ms),
  };
}

/** Lets the reflector's loop run until it waits on a watch with nothing scripted. */
const settle = () => new Promise(resolve => setTimeout(resolve, 10));

const page = (items: KubeObject[], resourceVersion: string, cont?: string): ListPage => ({
  items,
  resourceVersion,
  continue: cont,
});

describe("Reflector: list and watch, holding only what `keep` accepts", () => {
  it("lists in pages, holds and reports only kept objects, then watches from the list's version", async () => {
    const source = new ScriptedSource(
      [page([obj("a", "1"), other("x", "2")], "10", "next"), page([obj("b", "3")], "10")],
      [],
    );
    const h = harness(source);
    void h.reflector.start();
    await settle();
    expect(h.events).toEqual([
      ["ADDED", "a", "1"],
      ["ADDED", "b", "3"],
    ]);
    expect(h.reflector.size).toBe(2);
    expect(source.lists.map(l => l.continue)).toEqual([undefined, "next"]);
    expect(source.watches).toEqual([{ resourceVersion: "10", timeoutSeconds: 300 }]);
    expect(h.listed()).toBe(1);
    h.reflector.stop();
  });

  it("follows watch events; an object no longer kept is gone, one newly kept is added", async () => {
    const source = new ScriptedSource(
      [page([obj("a", "1"), obj("b", "2")], "10")],
      [
        {
          events: [
            { type: "MODIFIED", object: obj("a", "11") },
            { type: "ADDED", object: other("x", "12") },
            { type: "MODIFIED", object: other("b", "13") },
            { type: "MODIFIED", object: obj("x", "14") },
            { type: "DELETED", object: obj("a", "15") },
            { type: "DELETED", object: other("y", "16") },
            { type: "BOOKMARK", object: { metadata: { resourceVersion: "20" } } },
          ],
        },
      ],
    );
    const h = harness(source);
    void h.reflector.start();
    await settle();
    expect(h.events.slice(2)).toEqual([
      ["MODIFIED", "a", "11"],
      ["DELETED", "b", "2"], // the held object, as it was last kept
      ["ADDED", "x", "14"],
      ["DELETED", "a", "15"],
    ]);
    expect(h.reflector.size).toBe(1);
    // The server ended the watch: the next one starts from the bookmark, with no new list.
    expect(source.watches.map(w => w.resourceVersion)).toEqual(["10", "20"]);
    expect(source.lists).toHaveLength(1);
    h.reflector.stop();
  });

  it("lists again on 410 Gone; what was held and is not listed any more is reported gone", async () => {
    const source = new ScriptedSource(
      [page([obj("a", "1"), obj("b", "2")], "10"), page([obj("b", "2"), obj("c", "5")], "30")],
      [{ events: [{ type: "ERROR", object: { kind: "Status", code: 410, message: "too old" } }] }],
    );
    const h = harness(source);
    void h.reflector.start();
    await settle();
    expect(h.events.slice(2)).toEqual([
      ["ADDED", "c", "5"],
      ["DELETED", "a", "1"],
    ]);
    expect(h.failures).toEqual([]); // a 410 is no failure
    expect(source.watches.map(w => w.resourceVersion)).toEqual(["10", "30"]);
    h.reflector.stop();
  });

  it("lists again once the relist interval has passed, at the end of a watch", async () => {
    const watchEnds = gate();
    const source = new ScriptedSource(
      [page([obj("a", "1")], "10"), page([obj("a", "1")], "40")],
      [{ events: [], wait: watchEnds.promise }],
    );
    const h = harness(source);
    void h.reflector.start();
    await settle();
    h.advance(TIMINGS.relistMs);
    watchEnds.open();
    await settle();
    expect(source.lists).toHaveLength(2);
    expect(h.events).toEqual([["ADDED", "a", "1"]]); // unchanged: not reported again
    expect(source.watches.map(w => w.resourceVersion)).toEqual(["10", "40"]);
    h.reflector.stop();
  });

  it("backs off doubling to the cap, and gives up after failureMax failures in a row", async () => {
    const boom = new Error("connection refused");
    const source = new ScriptedSource([boom, boom, boom, boom], []);
    const h = harness(source);
    await h.reflector.start();
    expect(h.failures).toEqual([1, 2, 3, 4]);
    expect(h.sleeps).toEqual([100, 200, 350]);
    expect(h.gaveUp()).toBe(boom);
  });

  it("never gives up without failureMax; a good list resets the count", async () => {
    const boom = new Error("forbidden");
    const source = new ScriptedSource([boom, boom, boom, boom, boom, page([], "10")], []);
    const h = harness(source, { failureMax: undefined });
    void h.reflector.start();
    await settle();
    expect(h.failures).toEqual([1, 2, 3, 4, 5]);
    expect(h.gaveUp()).toBeUndefined();
    expect(h.listed()).toBe(1);
    h.reflector.stop();
  });

  it("pauses after a watch the server ended at once, without counting a failure", async () => {
    const source = new ScriptedSource([page([], "10")], [{ events: [] }, { events: [] }]);
    const h = harness(source);
    void h.reflector.start();
    await settle();
    expect(source.watches).toHaveLength(3);
    expect(h.sleeps).toEqual([TIMINGS.retryMs, TIMINGS.retryMs]);
    expect(h.failures).toEqual([]);
    h.reflector.stop();
  });

  it("a watch that fails is watched again from the last version seen, without a list", async () => {
    const source = new ScriptedSource(
      [page([], "10")],
      [{ events: [{ type: "ADDED", object: obj("a", "12") }], error: new Error("reset") }],
    );
    const h = harness(source);
    void h.reflector.start();
    await settle();
    expect(source.watches.map(w => w.resourceVersion)).toEqual(["10", "12"]);
    expect(source.lists).toHaveLength(1);
    expect(h.failures).toEqual([1]);
    h.reflector.stop();
  });
});

describe("Reflector.revisit: what the watch dropped before its owner was known", () => {
  it("takes the namespace's objects now kept, and leaves held ones as they are", async () => {
    let kept = new Set(["a"]);
    const source = new ScriptedSource(
      [page([obj("a", "1"), obj("b", "2")], "10")],
      [],
      [page([obj("a", "1"), obj("b", "2")], "11")],
    );
    const { reflector, events } = harness(source, {}, o => kept.has(o.metadata?.name ?? ""));
    void reflector.start();
    await settle();
    kept = new Set(["a", "b"]);
    await reflector.revisit("ns", "owner=b");
    expect(source.lists[1]).toEqual({ namespace: "ns", selector: "owner=b", continue: undefined });
    expect(events).toEqual([
      ["ADDED", "a", "1"],
      ["ADDED", "b", "2"],
    ]);
    reflector.stop();
  });

  it("does not bring back an object deleted while its namespace was being listed again", async () => {
    const revisitAnswer = gate();
    const deletion = gate();
    const kept = new Set<string>();
    const source = new ScriptedSource(
      [page([], "10")],
      [{ events: [{ type: "DELETED", object: obj("gone", "13") }], wait: deletion.promise }],
      [page([obj("gone", "3"), obj("here", "4")], "12")],
      () => revisitAnswer.promise,
    );
    const { reflector, events } = harness(source, {}, o => kept.has(o.metadata?.name ?? ""));
    void reflector.start();
    await settle();
    kept.add("gone").add("here");
    const revisit = reflector.revisit("ns", "owner=x");
    // The watch delivers the deletion while the revisit's list is on its way.
    deletion.open();
    await settle();
    revisitAnswer.open();
    await revisit;
    expect(events).toEqual([["ADDED", "here", "4"]]);
    reflector.stop();
  });
});
