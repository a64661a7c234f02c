/** The docs' list of a reconcile pass, from the tables reconcile runs (guards.ts, steps.ts). */
import { GUARDS } from "../../capabilities/database/reconcile/guards";
import { STEPS } from "../../capabilities/database/reconcile/steps";

export function renderReconcileSteps(): string {
  const count = GUARDS.length + STEPS.length;
  const line = (n: number, name: string, does: string, file: string) =>
    `${n}. **${name}**: ${does} (\`${file}\`).`;
  return [
    `### A reconcile pass in ${count} steps`,
    "",
    `Guards, each of which may end the pass, or keep it to the steps that keep the running`,
    `instances safe (marked _also under a refused spec_) (\`reconcile/guards.ts\`):`,
    "",
    ...GUARDS.map((g, i) => line(i + 1, g.name, g.does, g.file)),
    "",
    `Then the steps (\`reconcile/steps.ts\`), each given what the earlier ones found. A step that`,
    `fails does not stop the ones after it; the first failure is thrown at the end of the pass.`,
    "",
    ...STEPS.map((s, i) =>
      line(
        GUARDS.length + i + 1,
        s.name,
        s.keepsInstancesSafe ? `${s.does}; _also under a refused spec_` : s.does,
        s.file,
      ),
    ),
  ].join("\n");
}
