/**
 * The shape of a pgBackRest repository path pgkeeper writes (status.backup.repositoryPath):
 * `<prefix>/<namespace>/<name>/<uid>`, the prefix being objectStore.path (possibly just "/").
 * A recovery source must have it: anything else is not a repository pgkeeper made, or a path
 * that climbs out of its prefix.
 */

/** One prefix segment: no empty segment (`//`), and `.`/`..` are refused separately. */
const PREFIX_SEGMENT = /^[A-Za-z0-9._-]+$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** A Database name (DNS-1035 label of at most 50 characters; see MAX_NAME_LENGTH). */
const DATABASE_NAME = /^[a-z]([-a-z0-9]{0,48}[a-z0-9])?$/;
/** A metadata.uid: a UUID in practice; lower-case hex and dashes, at most 36 characters. */
const UID = /^[0-9a-f]([-0-9a-f]{0,34}[0-9a-f])?$/;

export interface RepositoryOwner {
  namespace: string;
  name: string;
  uid: string;
}

/** Why `path` is not a repository path, or undefined. */
export function repositoryPathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return "must start with /";
  const segments = path.slice(1).split("/");
  if (segments.some(s => s === "")) return "must not contain an empty segment (//) or end with /";
  if (segments.some(s => s === "." || s === "..")) return "must not contain . or .. segments";
  if (segments.length < 3) return "must end in <namespace>/<name>/<uid>";
  const [namespace, name, uid] = segments.slice(-3);
  if (!segments.slice(0, -3).every(s => PREFIX_SEGMENT.test(s))) {
    return "prefix segments may only hold letters, digits, '.', '_' and '-'";
  }
  if (!NAMESPACE.test(namespace)) return `"${namespace}" is not a namespace name`;
  if (!DATABASE_NAME.test(name)) return `"${name}" is not a Database name`;
  if (!UID.test(uid)) return `"${uid}" is not a uid`;
  return undefined;
}

/** The namespace, name and uid a repository path names, or undefined when it has not the shape. */
export function parseRepositoryPath(path: string): RepositoryOwner | undefined {
  if (repositoryPathProblem(path) !== undefined) return undefined;
  const [namespace, name, uid] = path.split("/").slice(-3);
  return { namespace, name, uid };
}
