/** Every generated section of the docs: the file it lives in, and how to render it. */
import { renderReconcileSteps } from "./reconcile-steps";

export interface Section {
  file: string;
  name: string;
  render: () => string;
}

export const SECTIONS: readonly Section[] = [
  { file: "docs/architecture.md", name: "reconcile steps", render: renderReconcileSteps },
];
