import { parameterCatalogRule } from "./parameters";
import { CheckedDatabase } from "./types";

const withParameters = (parameters: Record<string, string>): CheckedDatabase =>
  ({
    metadata: { name: "orders" },
    spec: { version: "15", instances: 1, storage: { size: "1Gi" }, postgresql: { parameters } },
  }) as unknown as CheckedDatabase;

const letter = (n: number) => String.fromCharCode(97 + (Math.floor(n) % 26));

describe("parameterCatalogRule's suggestions", () => {
  it("refuses every unknown name but searches a suggestion for the first 10 only", () => {
    // Each search costs hundreds of edit distances; 200 of them held the event loop for 1.7 s.
    const typos = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`shared_buffer${letter(i / 26)}${letter(i)}`, "1"]),
    );
    const denials = parameterCatalogRule.check({ db: withParameters(typos) } as never);
    expect(denials).toHaveLength(200);
    expect(denials.filter(d => d.message.includes("did you mean"))).toHaveLength(10);
  });

  it.each([
    ["shared_bufers", "shared_buffers"],
    ["WORK_MEM2", "work_mem"],
    ["a_name_far_longer_than_any_parameter_name_x", undefined],
  ])("suggests for %s: %s", (typo, suggestion) => {
    const [denial] = parameterCatalogRule.check({ db: withParameters({ [typo]: "1" }) } as never);
    expect(denial.message.match(/did you mean (\w+)\?/)?.[1]).toBe(suggestion);
  });
});
