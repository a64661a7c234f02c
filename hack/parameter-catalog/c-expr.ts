/**
 * Evaluates the C constant expressions of the GUC tables' bounds (`INT_MAX / 2`,
 * `MAX_KILOBYTES`, `1024 * 1024`, `100.0`, `(double) INT_MAX`) with C's arithmetic: division
 * of two integers truncates.
 */

interface Value {
  v: number;
  integer: boolean;
}

const TYPES = new Set(["int", "long", "double", "float", "int64", "int32", "Size", "size_t"]);

/** `macros` maps a name to its definition (an expression) or value; undefined when unknown. */
export function evaluate(
  expression: string,
  macros: (name: string) => string | number | undefined,
  depth = 0,
): number {
  if (depth > 20) throw new Error(`macro loop in ${expression}`);
  const tokens =
    expression.match(
      /\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|0[xX][0-9a-fA-F]+|\d+[uUlL]*|\w+|<<|>>|[(),*/+-]/g,
    ) ?? [];
  let at = 0;
  const next = () => tokens[at++];
  const primary = (): Value => {
    const t = next();
    if (t === undefined) throw new Error(`cannot evaluate "${expression}"`);
    if (t === "(") {
      // A cast: the type in parentheses is dropped (the value keeps its kind, as far as bounds go).
      if (TYPES.has(tokens[at]) && tokens[at + 1] === ")") {
        const type = next();
        next();
        const operand = primary();
        return type === "double" || type === "float" ? { v: operand.v, integer: false } : operand;
      }
      const v = shift();
      next();
      return v;
    }
    if (t === "-") {
      const operand = primary();
      return { v: -operand.v, integer: operand.integer };
    }
    if (t === "+") return primary();
    if ((t === "Min" || t === "Max") && tokens[at] === "(") {
      // c.h's Min(x, y) and Max(x, y).
      next();
      const a = shift();
      next();
      const b = shift();
      next();
      const pick = t === "Min" ? Math.min : Math.max;
      return { v: pick(a.v, b.v), integer: a.integer && b.integer };
    }
    if (/^0[xX]/.test(t)) return { v: Number.parseInt(t, 16), integer: true };
    if (/^0[0-7]+$/.test(t)) return { v: Number.parseInt(t, 8), integer: true };
    if (/^[\d.]/.test(t)) {
      const plain = t.replace(/[uUlL]+$/, "");
      return { v: Number(plain), integer: /^\d+$/.test(plain) };
    }
    const definition = macros(t);
    if (definition === undefined) throw new Error(`unknown macro ${t} in "${expression}"`);
    if (typeof definition === "number")
      return { v: definition, integer: Number.isInteger(definition) };
    const v = evaluate(definition, macros, depth + 1);
    return { v, integer: Number.isInteger(v) && !/\d\.|\de/i.test(definition) };
  };
  const product = (): Value => {
    let left = primary();
    while (tokens[at] === "*" || tokens[at] === "/") {
      const op = next();
      const right = primary();
      const integer = left.integer && right.integer;
      const v = op === "*" ? left.v * right.v : left.v / right.v;
      left = { v: op === "/" && integer ? Math.trunc(v) : v, integer };
    }
    return left;
  };
  const sum = (): Value => {
    let left = product();
    while (tokens[at] === "+" || tokens[at] === "-") {
      const op = next();
      const right = product();
      left = {
        v: op === "+" ? left.v + right.v : left.v - right.v,
        integer: left.integer && right.integer,
      };
    }
    return left;
  };
  const shift = (): Value => {
    let left = sum();
    while (tokens[at] === "<<" || tokens[at] === ">>") {
      const op = next();
      const right = sum();
      const v = op === "<<" ? left.v * 2 ** right.v : Math.floor(left.v / 2 ** right.v);
      left = { v, integer: true };
    }
    return left;
  };
  const result = shift();
  if (at !== tokens.length) throw new Error(`cannot evaluate "${expression}"`);
  return result.v;
}
