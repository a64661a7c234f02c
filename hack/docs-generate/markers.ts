/**
 * Generated sections of the docs: text between `<!-- generated: NAME -->` and
 * `<!-- end generated: NAME -->` is rewritten by `npm run docs:generate` and checked by
 * hack/docs-generate/generated.test.ts; everything else in the file is written by hand.
 */
export const begin = (name: string): string =>
  `<!-- generated: ${name} (npm run docs:generate; do not edit by hand) -->`;
export const end = (name: string): string => `<!-- end generated: ${name} -->`;

/** `doc` with the section `name` replaced by `body`; throws when the markers are missing. */
export function withSection(doc: string, name: string, body: string): string {
  const from = doc.indexOf(begin(name));
  const to = doc.indexOf(end(name));
  if (from < 0 || to < from) throw new Error(`no generated section "${name}" (markers missing)`);
  return `${doc.slice(0, from)}${begin(name)}\n\n${body.trim()}\n\n${doc.slice(to)}`;
}
