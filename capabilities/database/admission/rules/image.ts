import { deny, Rule } from "./types";

// Pieces of the container image reference grammar ([registry/]repository[:tag][@digest]).
const DOMAIN =
  /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]+)?$/;
const PATH_COMPONENT = /^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+([+._-][a-z0-9]+)*:[a-fA-F0-9]{32,}$/;

/** The first component is a registry when it looks like a host (a dot, a port, or localhost). */
const isRegistry = (component: string): boolean =>
  component.includes(".") || component.includes(":") || component === "localhost";

/** True when `ref` is a plausible image reference. */
function isImageReference(ref: string): boolean {
  const [nameAndTag, digest, ...rest] = ref.split("@");
  if (rest.length > 0 || (digest !== undefined && !DIGEST.test(digest))) return false;
  const lastSlash = nameAndTag.lastIndexOf("/");
  const colon = nameAndTag.indexOf(":", lastSlash + 1);
  const name = colon < 0 ? nameAndTag : nameAndTag.slice(0, colon);
  if (colon >= 0 && !TAG.test(nameAndTag.slice(colon + 1))) return false;
  const components = name.split("/");
  if (components.length > 1 && isRegistry(components[0])) {
    if (!DOMAIN.test(components.shift() as string)) return false;
  }
  return name.length <= 255 && components.every(c => PATH_COMPONENT.test(c));
}

/**
 * The PostgreSQL major a tag names, when it starts with one ("16", "16.3", "16-alpine",
 * "15.8-bookworm", "16beta1", and the two-part majors before 10: "9.6"); undefined for tags that
 * say nothing (latest, dates, digests only).
 */
export function tagMajor(ref: string): string | undefined {
  const nameAndTag = ref.split("@")[0];
  const colon = nameAndTag.indexOf(":", nameAndTag.lastIndexOf("/") + 1);
  if (colon < 0) return undefined;
  const tag = nameAndTag.slice(colon + 1);
  const old = /^([6-9]\.\d)(?=$|[._-]|(alpha|beta|rc)\d)/.exec(tag)?.[1];
  return old ?? /^(1\d|[2-9]\d)(?=$|[._-]|(alpha|beta|rc)\d)/.exec(tag)?.[1];
}

/**
 * spec.image, when set: a valid reference, and when its tag names a PostgreSQL major, the one of
 * spec.version (an image of another major cannot read the data directory, and on an update it
 * would bypass the version's immutability). An image admitted before this rule is kept while
 * unchanged.
 */
export const imageRule: Rule = {
  name: "image",
  check: ({ db, old }) => {
    const { image } = db.spec;
    if (image === undefined) return [];
    if (image.trim() === "") {
      return [deny("spec.image", "must not be empty; omit it to use the operator's default image")];
    }
    if (/\s/.test(image)) return [deny("spec.image", `"${image}" must not contain whitespace`)];
    if (!isImageReference(image)) {
      return [
        deny(
          "spec.image",
          `"${image}" is not a valid image reference; expected [registry/]repository[:tag][@sha256:digest] with a lowercase repository`,
        ),
      ];
    }
    const major = tagMajor(image);
    if (major === undefined || major === db.spec.version || old?.spec.image === image) return [];
    return [
      deny(
        "spec.image",
        `"${image}" is a PostgreSQL ${major} image, but spec.version is ${db.spec.version}; the image must be of the Database's major`,
      ),
    ];
  },
};

/** The repository of an image reference: without its tag and digest. */
const repositoryOf = (ref: string): string => {
  const nameAndTag = ref.split("@")[0];
  const colon = nameAndTag.indexOf(":", nameAndTag.lastIndexOf("/") + 1);
  return colon < 0 ? nameAndTag : nameAndTag.slice(0, colon);
};

/** Whether `image` is one `allowed` names (see OperatorConfig.allowedImages). */
export const imageAllowed = (image: string, allowed: readonly string[]): boolean =>
  allowed.length === 0 ||
  allowed.some(entry =>
    entry.endsWith("/") ? image.startsWith(entry) : repositoryOf(image) === entry,
  );

/**
 * The operator's image allowlist (PGKEEPER_ALLOWED_IMAGES, off by default): spec.image must be
 * one it names. An image runs as the Database's instances, with its data, certificates and
 * passwords. The default image is the operator's own and always allowed; an image admitted
 * before the list was set is kept while unchanged.
 */
export const allowedImageRule: Rule = {
  name: "allowed-image",
  check: ({ db, old, config }) => {
    const { image } = db.spec;
    if (image === undefined || old?.spec.image === image) return [];
    if (imageAllowed(image, config.allowedImages)) return [];
    return [
      deny(
        "spec.image",
        `"${image}" is not among the images this operator allows (${config.allowedImages.join(", ")}); omit spec.image for the default`,
      ),
    ];
  },
};
