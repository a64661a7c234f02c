/**
 * The markers around generated text in the docs, and reading or replacing what they hold:
 *
 *   <!-- generated: NAME (npm run docs:generate; do not edit by hand) -->
 *   (blank line) body (blank line)
 *   <!-- end generated: NAME -->
 */
export const beginMarker = (name: string): string =>
  `<!-- generated: ${name} (npm run docs:generate; do not edit by hand) -->`;

export const endMarker = (name: string): string => `<!-- end generated: ${name} -->`;

/** Where the body between `name`'s markers starts and ends in `doc`; throws when not found once. */
function bounds(doc: string, name: string): { start: number; end: number } {
  const begin = beginMarker(name);
  const at = doc.indexOf(begin);
  if (at < 0 || doc.indexOf(begin, at + 1) >= 0) throw new Error(`expected exactly one "${begin}"`);
  const end = doc.indexOf(endMarker(name), at);
  if (end < 0) throw new Error(`no "${endMarker(name)}" after its begin marker`);
  return { start: at + begin.length, end };
}

/** The body between `name`'s markers, trimmed. */
export function generatedBody(doc: string, name: string): string {
  const { start, end } = bounds(doc, name);
  return doc.slice(start, end).trim();
}

/** `doc` with `body` between `name`'s markers, a blank line on each side. */
export function replaceGenerated(doc: string, name: string, body: string): string {
  const { start, end } = bounds(doc, name);
  return `${doc.slice(0, start)}\n\n${body.trim()}\n\n${doc.slice(end)}`;
}
