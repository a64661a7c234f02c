/**
 * Container image references as the distribution/reference grammar (the one containerd and the
 * kubelet parse with) defines them, and the PostgreSQL major a tag names.
 *
 *   reference := name [ ":" tag ] [ "@" digest ]
 *   name      := [ domain "/" ] path-component ( "/" path-component )*   (at most 255 characters)
 *   domain    := ( domain-name | "[" ipv6 "]" ) [ ":" port ]
 *   path-component := [a-z0-9]+ ( separator [a-z0-9]+ )*,  separator := [_.] | __ | -+
 *   tag       := [\w][\w.-]{0,127}
 *   digest    := algorithm ":" hex, checked by go-digest: sha256 64, sha384 96, sha512 128
 *                lower-case hex digits
 */

const ALNUM = "[a-z0-9]+";
const PATH_COMPONENT = `${ALNUM}(?:(?:[._]|__|-+)${ALNUM})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])`;
const DOMAIN = `${HOST}(?::[0-9]+)?`;
const NAME = `(?:(${DOMAIN})/)?(${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)`;
const REFERENCE = new RegExp(
  `^(${NAME})(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-zA-Z=_-]+))?$`,
);
const DIGEST_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

export type ImageRead = { ok: true; tag?: string; ambiguous?: string } | { ok: false; why: string };

function digestProblem(digest: string): string | undefined {
  const [algorithm, hex] = digest.split(":");
  const length = DIGEST_LENGTH[algorithm];
  if (length === undefined) return `unsupported digest algorithm ${algorithm}`;
  if (!new RegExp(`^[a-f0-9]{${length}}$`).test(hex))
    return `a ${algorithm} digest is ${length} lower-case hex digits`;
  return undefined;
}

/** Reads an image reference; `ambiguous` when it parses but where it pulls from is unclear. */
export function readImage(image: string): ImageRead {
  const m = REFERENCE.exec(image);
  if (!m) return { ok: false, why: "not an image reference" };
  const [, name, domain, path, tag, digest] = m;
  if (name.length > 255) return { ok: false, why: "repository name longer than 255" };
  if (digest !== undefined) {
    const problem = digestProblem(digest);
    if (problem) return { ok: false, why: problem };
  }
  // Docker's normalisation takes a first component with '.' or ':' for a registry: one that is
  // no valid domain (my_registry.io) parses as a path, but a pull may well go elsewhere.
  const first = path.split("/")[0];
  const ambiguous =
    domain === undefined && path.includes("/") && /[.:]/.test(first)
      ? "first path component looks like a registry but is no domain name"
      : undefined;
  return { ok: true, tag, ambiguous };
}

export type TagMajor =
  | { kind: "none" }
  | { kind: "major"; major: string; plain: boolean }
  | { kind: "unclear"; why: string };

/**
 * The major a tag names. Two digits first (16, 16.4, 16-alpine, 16beta1) name that major;
 * `plain` when the CRD's rule sees it too (followed by the end, '.', '_' or '-'). One digit and a
 * fraction (9.6) names a pre-10 major. Three or more digits (dates, builds) and words name none.
 */
export function tagMajor(tag: string | undefined): TagMajor {
  if (tag === undefined) return { kind: "none" };
  const m = /^([0-9]+)(.?)/.exec(tag);
  if (!m) return { kind: "none" };
  const [, digits, next] = m;
  if (digits.length >= 3) return { kind: "none" };
  if (digits.length === 2 && digits[0] !== "0") {
    if (next === "" || /[._-]/.test(next)) return { kind: "major", major: digits, plain: true };
    if (/[a-z]/i.test(next)) return { kind: "major", major: digits, plain: false };
    return { kind: "none" };
  }
  if (digits.length === 1 && /^[0-9]\.[0-9]/.test(tag)) {
    return { kind: "major", major: tag.slice(0, 3), plain: false };
  }
  return { kind: "unclear", why: `tag ${tag} may name a major or not` };
}
