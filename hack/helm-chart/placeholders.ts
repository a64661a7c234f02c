/**
 * Helm template expressions inserted into YAML that js-yaml dumps. An expression cannot go into
 * an object (js-yaml would quote it, and `{{- if }}` lines are no YAML at all), so the object
 * holds a token, a plain scalar js-yaml writes as it is, and `fill` replaces each token's line
 * after the dump, using that line's own indentation. A token must land exactly once, in a line of
 * the shape it was made for: anything else throws, so a template cannot silently lose a value.
 */

/** No dumped object holds this (base64 has no `_`; `fill` refuses unknown tokens anyway). */
export const TOKEN_PREFIX = "PGKEEPER_HELM_";
const TOKEN = new RegExp(`${TOKEN_PREFIX}\\d+`, "g");

type Fill =
  /** After `key: `: the token becomes `render(column of the key)`. */
  | { kind: "value"; render: (keyColumn: number) => string }
  /** A whole line (`- TOKEN` in a list, `TOKEN: ''` in a map): these lines at its indentation. */
  | { kind: "lines"; render: (column: number) => readonly string[] };

/** `key: TOKEN`, the key possibly behind list dashes (`- name: TOKEN`). */
const VALUE_LINE = /^((?:\s*- )*\s*)[^\s:][^:]*: (\S+)$/;
/** `- TOKEN` or `TOKEN: ''` (the token as a list item or as a map key with an empty value). */
const WHOLE_LINE = /^(\s*)(?:- (\S+)|(\S+): '')$/;

/** The tokens of one template file and what each becomes. */
export class Placeholders {
  readonly #fills = new Map<string, Fill>();

  /** A token for a value: a template expression, or one that depends on the key's column. */
  value(expression: string | ((keyColumn: number) => string)): string {
    const render = typeof expression === "string" ? () => expression : expression;
    return this.#add({ kind: "value", render });
  }

  /**
   * A token for a list item or a map key: replaced by `lines`, each at the line's indentation
   * (the column of the dash or of the key), or by the lines that depend on that column.
   */
  lines(lines: readonly string[] | ((column: number) => readonly string[])): string {
    const render = typeof lines === "function" ? lines : () => lines;
    return this.#add({ kind: "lines", render });
  }

  /** `yaml` with every token replaced. Throws on a token missing, repeated, unknown or misplaced. */
  fill(yaml: string): string {
    if (/\{\{|\}\}/.test(yaml)) {
      throw new Error(
        "the dumped YAML already holds {{ or }}, which Helm would read as a template",
      );
    }
    const seen = new Set<string>();
    const out = yaml.split("\n").flatMap(line => {
      const [token, ...more] = [...line.matchAll(TOKEN)].map(m => m[0]);
      if (token === undefined) return [line];
      if (more.length > 0) throw new Error(`two placeholders in one line: ${line}`);
      if (seen.has(token)) throw new Error(`placeholder ${token} appears twice`);
      seen.add(token);
      return this.#replace(line, token);
    });
    const missing = [...this.#fills.keys()].filter(token => !seen.has(token));
    if (missing.length > 0) throw new Error(`placeholders not in the YAML: ${missing.join(", ")}`);
    return out.join("\n");
  }

  #add(fill: Fill): string {
    const token = `${TOKEN_PREFIX}${this.#fills.size}`;
    this.#fills.set(token, fill);
    return token;
  }

  #replace(line: string, token: string): string[] {
    const fill = this.#fills.get(token);
    if (!fill) throw new Error(`unknown placeholder ${token}`);
    if (fill.kind === "value") {
      const match = VALUE_LINE.exec(line);
      if (!match || match[2] !== token) throw new Error(`${token} is not a value: ${line}`);
      return [line.slice(0, -token.length) + fill.render(match[1].length)];
    }
    const match = WHOLE_LINE.exec(line);
    if (!match || (match[2] ?? match[3]) !== token) {
      throw new Error(`${token} is not a whole list item or map key: ${line}`);
    }
    const indent = match[1];
    return fill.render(indent.length).map(l => (l === "" ? "" : indent + l));
  }
}

/**
 * A YAML value rendered by `toYaml` on the lines below its key: `key:` then the block, two
 * columns in (`{{-` eats the space after the colon).
 */
export const yamlBlock =
  (expression: string) =>
  (keyColumn: number): string =>
    `{{- toYaml ${expression} | nindent ${keyColumn + 2} }}`;

/** The lines of a named template (`define`) at the token's column, e.g. labels into a map. */
export const included =
  (name: string) =>
  (column: number): string[] => [`{{- include "${name}" . | nindent ${column} }}`];

/** A text (a file of the chart) as a literal block scalar below its key, verbatim. */
export const textBlock =
  (expression: string) =>
  (keyColumn: number): string =>
    `|-{{ ${expression} | trimSuffix "\\n" | nindent ${keyColumn + 2} }}`;

/** Stands for a value of type T in an object until `fill` replaces the token. */
export const hole = <T>(token: string): T => token as unknown as T;
