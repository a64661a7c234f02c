import { dump } from "js-yaml";
import { hole, Placeholders, textBlock, TOKEN_PREFIX, yamlBlock } from "./placeholders";

const dumped = (object: unknown): string => dump(object, { lineWidth: -1 });

describe("Placeholders.fill", () => {
  it.each([
    [
      "a scalar value keeps its key",
      (p: Placeholders) => ({ spec: { replicas: p.value("{{ .Values.r }}") } }),
      "spec:\n  replicas: {{ .Values.r }}\n",
    ],
    [
      "a toYaml block is indented two columns past its key",
      (p: Placeholders) => ({ a: { b: { resources: p.value(yamlBlock(".Values.res")) } } }),
      "a:\n  b:\n    resources: {{- toYaml .Values.res | nindent 6 }}\n",
    ],
    [
      "a key behind list dashes counts from the key",
      (p: Placeholders) => ({ env: [{ name: "X", value: p.value(yamlBlock(".V")) }] }),
      "env:\n  - name: X\n    value: {{- toYaml .V | nindent 6 }}\n",
    ],
    [
      "a text block is a literal scalar",
      (p: Placeholders) => ({ data: { "x.json": p.value(textBlock('.Files.Get "f"')) } }),
      'data:\n  x.json: |-{{ .Files.Get "f" | trimSuffix "\\n" | nindent 4 }}\n',
    ],
    [
      "a list item becomes lines at the dash's column",
      (p: Placeholders) => ({
        env: [{ name: "A", value: "1" }, p.lines(["{{- with .V }}", "- name: B", "{{- end }}"])],
      }),
      "env:\n  - name: A\n    value: '1'\n  {{- with .V }}\n  - name: B\n  {{- end }}\n",
    ],
    [
      "a map key becomes lines at its column",
      (p: Placeholders) => ({
        metadata: { labels: { app: "x", [p.lines(["{{- include }}"])]: "" } },
      }),
      "metadata:\n  labels:\n    app: x\n    {{- include }}\n",
    ],
    [
      "empty lines stay empty",
      (p: Placeholders) => ({ a: { [p.lines(["x:", "", "y: 1"])]: "" } }),
      "a:\n  x:\n\n  y: 1\n",
    ],
  ])("%s", (_title, build, expected) => {
    const p = new Placeholders();
    expect(p.fill(dumped(build(p)))).toBe(expected);
  });

  it.each([
    ["a token never dumped", (p: Placeholders) => (p.value("x"), { a: 1 }), /not in the YAML/],
    [
      "a token dumped twice",
      (p: Placeholders) => {
        const t = p.value("x");
        return { a: t, b: t };
      },
      /appears twice/,
    ],
    [
      "a value token as a list item",
      (p: Placeholders) => ({ a: [p.value("x")] }),
      /is not a value/,
    ],
    [
      "a lines token as a value",
      (p: Placeholders) => ({ a: p.lines(["x"]) }),
      /is not a whole list item or map key/,
    ],
    [
      "a token inside a longer string",
      (p: Placeholders) => ({ a: `prefix-${p.value("x")}` }),
      /is not a value/,
    ],
    ["an unknown token", () => ({ a: `${TOKEN_PREFIX}99` }), /unknown placeholder/],
    ["text that Helm would template", () => ({ legend: "{{pod}}" }), /already holds \{\{ or \}\}/],
    [
      "two tokens in one line",
      (p: Placeholders) => ({ [p.lines(["x"])]: p.value("y") }),
      /two placeholders in one line/,
    ],
  ])("refuses %s", (_title, build, error) => {
    const p = new Placeholders();
    expect(() => p.fill(dumped(build(p)))).toThrow(error);
  });

  it("dumps tokens as plain scalars, even where a number belongs", () => {
    const p = new Placeholders();
    const token = p.value("{{ .Values.n }}");
    expect(dumped({ replicas: hole<number>(token) })).toBe(`replicas: ${token}\n`);
  });
});
