/**
 * One copy of each long text the cache would otherwise hold once per Database. Every Database's
 * config ConfigMap carries the same instance scripts (entrypoint.sh, probe.sh, bootstrap.sql:
 * 42 of its 44 KiB), and every object from the wire arrives with its own copies: at 1,000
 * Databases that was 41 MiB of the cache (cache-size.test.ts). Texts are matched by value in a
 * bounded table; when it is full it starts anew (texts already shared stay shared, and one a
 * Database alone has costs an entry only until then).
 */

/** Shorter texts are not worth a table lookup (hashing the text) or an entry. */
export const SHARED_TEXT_MIN_LENGTH = 1024;
/** Distinct long texts remembered at once: the scripts of a few operator builds, with room. */
export const SHARED_TEXT_LIMIT = 256;

export class SharedTexts {
  private readonly texts = new Map<string, string>();

  constructor(private readonly limit = SHARED_TEXT_LIMIT) {}

  /** The one copy equal to `text` (`text` itself the first time it is seen). */
  share(text: string): string {
    if (text.length < SHARED_TEXT_MIN_LENGTH) return text;
    const known = this.texts.get(text);
    if (known !== undefined) return known;
    if (this.texts.size >= this.limit) this.texts.clear();
    this.texts.set(text, text);
    return text;
  }

  /**
   * `data` with each long value shared: a copy when there is one (equal strings cannot be told
   * apart in JavaScript, so the copy is made whenever one may be shared), else `data` itself.
   */
  shareValues(data: Record<string, string>): Record<string, string> {
    const values = Object.entries(data);
    if (!values.some(([, value]) => value.length >= SHARED_TEXT_MIN_LENGTH)) return data;
    return Object.fromEntries(values.map(([key, value]) => [key, this.share(value)]));
  }

  get size(): number {
    return this.texts.size;
  }
}
