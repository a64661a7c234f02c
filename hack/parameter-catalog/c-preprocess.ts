/**
 * The little of the C preprocessor the GUC tables need: comments out, and the lines of inactive
 * #if/#ifdef/#ifndef/#elif/#else branches dropped, given the symbols a build defines.
 */

/** Strips C comments, keeping string and character literals (which may hold slashes). */
export function stripComments(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === "\\" ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      // Keep the line count, so lines stay lines for the directive pass.
      out += source.slice(i, end + 2).replace(/[^\n]/g, "");
      i = end + 1;
    } else if (c === "/" && source[i + 1] === "/") {
      while (i < source.length && source[i] !== "\n") i++;
      out += "\n";
    } else out += c;
  }
  return out;
}

/** Evaluates a #if expression: defined(X), !, &&, ||, comparisons and integer arithmetic. */
export function evaluateCondition(
  expression: string,
  defined: Set<string>,
  value: (name: string) => number | undefined,
): boolean {
  const tokens = expression.match(/defined|\w+|&&|\|\||[<>=!]=|[()!<>*/+-]/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  const primary = (): number => {
    const t = next();
    if (t === "(") {
      const v = or();
      next();
      return v;
    }
    if (t === "!") return primary() ? 0 : 1;
    if (t === "-") return -primary();
    if (t === "defined") {
      const paren = peek() === "(";
      if (paren) next();
      const name = next();
      if (paren) next();
      return defined.has(name) ? 1 : 0;
    }
    if (/^\d/.test(t)) return Number.parseInt(t, 10);
    return value(t) ?? (defined.has(t) ? 1 : 0);
  };
  const binary = (operators: string[], operand: () => number) => (): number => {
    let v = operand();
    while (operators.includes(peek())) {
      const op = next();
      const w = operand();
      v = apply(op, v, w);
    }
    return v;
  };
  const product = binary(["*", "/"], primary);
  const sum = binary(["+", "-"], product);
  const comparison = binary(["<", ">", "<=", ">=", "==", "!="], sum);
  const and = binary(["&&"], comparison);
  const or = binary(["||"], and);
  return or() !== 0;
}

function apply(op: string, v: number, w: number): number {
  switch (op) {
    case "*":
      return v * w;
    case "/":
      return Math.trunc(v / w);
    case "+":
      return v + w;
    case "-":
      return v - w;
    case "<":
      return Number(v < w);
    case ">":
      return Number(v > w);
    case "<=":
      return Number(v <= w);
    case ">=":
      return Number(v >= w);
    case "==":
      return Number(v === w);
    case "!=":
      return Number(v !== w);
    case "&&":
      return Number(v !== 0 && w !== 0);
    default:
      return Number(v !== 0 || w !== 0);
  }
}

/** The source as this build compiles it: inactive branches and all directives blanked. */
export function activeLines(
  source: string,
  defined: Set<string>,
  value: (name: string) => number | undefined = () => undefined,
): string {
  // Each frame: is this branch active, has any branch of this #if been taken, was the parent active.
  const stack: { active: boolean; taken: boolean; parent: boolean }[] = [];
  const live = () => stack.every(frame => frame.active);
  const lines = stripComments(source).replace(/\\\n/g, " \n").split("\n");
  return lines
    .map(line => {
      const directive = /^\s*#\s*(\w+)\s*(.*)$/.exec(line);
      if (!directive) return live() ? line : "";
      const [, word, rest] = directive;
      const test = (): boolean =>
        word === "ifdef"
          ? defined.has(rest.trim())
          : word === "ifndef"
            ? !defined.has(rest.trim())
            : evaluateCondition(rest, defined, value);
      if (word === "if" || word === "ifdef" || word === "ifndef") {
        const parent = live();
        const active = parent && test();
        stack.push({ active, taken: active, parent });
      } else if (word === "elif") {
        const frame = stack[stack.length - 1];
        frame.active = frame.parent && !frame.taken && test();
        frame.taken ||= frame.active;
      } else if (word === "else") {
        const frame = stack[stack.length - 1];
        frame.active = frame.parent && !frame.taken;
        frame.taken = true;
      } else if (word === "endif") stack.pop();
      return "";
    })
    .join("\n");
}
