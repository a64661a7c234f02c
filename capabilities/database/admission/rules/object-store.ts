/**
 * What the CRD's patterns cannot say about an object store (backup.objectStore and the recovery
 * source's): a port that exists, a bucket name S3 accepts, a prefix that stays a prefix.
 */
import { ObjectStoreSpec } from "../../api/database-schema";
import { Denial, deny, Rule } from "./types";

/** S3: no IP-address-like names, no adjacent periods, no period next to a hyphen, no reserved affixes. */
function bucketProblem(bucket: string): string | undefined {
  if (/^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/.test(bucket)) return "must not look like an IP address";
  if (/\.\.|\.-|-\./.test(bucket))
    return "must not have adjacent periods or a period next to a hyphen";
  if (/^(xn--|sthree-)|(-s3alias|--ol-s3)$/.test(bucket))
    return "uses a prefix or suffix S3 reserves (xn--, sthree-, -s3alias, --ol-s3)";
  return undefined;
}

/**
 * A host whose last label is all digits is no DNS name (no top-level domain is numeric): it
 * must be an IPv4 address (the fuzz bench got 10.0.0.999 admitted, issue 28).
 */
function numericHostProblem(labels: string[]): string | undefined {
  if (!/^[0-9]+$/.test(labels[labels.length - 1])) return undefined;
  const ipv4 = labels.length === 4 && labels.every(l => /^[0-9]{1,3}$/.test(l) && Number(l) <= 255);
  return ipv4
    ? undefined
    : "is no IPv4 address (four parts, each 0..255), and a host name's last label is not all digits";
}

function endpointProblem(endpoint: string): string | undefined {
  const host = endpoint.replace(/:[0-9]+$/, "");
  const labels = host.split(".");
  if (labels.some(label => label === "" || label.length > 63))
    return "has an empty host name label or one over 63 characters";
  const numeric = numericHostProblem(labels);
  if (numeric) return numeric;
  const port = /:([0-9]+)$/.exec(endpoint)?.[1];
  if (port === undefined || (Number(port) >= 1 && Number(port) <= 65535)) return undefined;
  return `port ${port} is out of range; allowed 1..65535`;
}

function pathProblem(path: string): string | undefined {
  const segments = path.split("/").slice(1);
  if (path.includes("//")) return "must not contain an empty segment (//)";
  if (segments.some(s => s === "." || s === "..")) return "must not contain . or .. segments";
  return undefined;
}

/** Denials of one object store at `field`. */
export function objectStoreDenials(store: ObjectStoreSpec, field: string): Denial[] {
  const problems: [string, string | undefined][] = [
    ["endpoint", endpointProblem(store.endpoint)],
    ["bucket", bucketProblem(store.bucket)],
    ["path", store.path === undefined ? undefined : pathProblem(store.path)],
  ];
  return problems.flatMap(([name, problem]) =>
    problem === undefined
      ? []
      : [
          deny(
            `${field}.${name}`,
            `${JSON.stringify(store[name as keyof ObjectStoreSpec])} ${problem}`,
          ),
        ],
  );
}

export const objectStoreRule: Rule = {
  name: "object-store",
  check: ({ db }) => {
    const backup = db.spec.backup?.objectStore;
    const source = db.spec.bootstrap?.recovery?.source.objectStore;
    return [
      ...(backup ? objectStoreDenials(backup, "spec.backup.objectStore") : []),
      ...(source ? objectStoreDenials(source, "spec.bootstrap.recovery.source.objectStore") : []),
    ];
  },
};
