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
 * spec.image, when set. Whether the image's PostgreSQL major matches spec.version cannot be
 * known from the reference (tags are free text), so that is not checked.
 */
export const imageRule: Rule = {
  name: "image",
  check: ({ db }) => {
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
    return [];
  },
};
