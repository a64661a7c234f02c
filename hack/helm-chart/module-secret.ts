/**
 * The Secret that holds the module's code (`module-<hash>.js.gz`, about 300 KB gzipped) takes
 * its data from a file of the chart. Helm keeps each release in one Secret (1 MiB at most) that
 * holds the rendered manifest and the chart, both gzipped once more: the module's base64 text in
 * a template would be stored base64-encoded again, which gzip cannot undo. As a binary file it
 * costs about 110 KB less (990 KB → 880 KB stored at the time of writing, for a 1.07 MB bundle).
 */
import type { V1Secret } from "@kubernetes/client-node";
import type { Placeholders } from "./placeholders";

/** Data keys Pepr names after the module's gzipped bundle. */
export const isModuleKey = (key: string): boolean => /\.js\.gz$/.test(key);
export const moduleFile = (key: string): string => `files/${key}`;

export const isModuleSecret = (o: { kind?: string; data?: Record<string, string> }): boolean =>
  o.kind === "Secret" && Object.keys(o.data ?? {}).some(isModuleKey);

/** The module's files of the chart: the gzipped bundle's bytes, by chart path. */
export function moduleFiles(secret: V1Secret): Record<string, Uint8Array> {
  return Object.fromEntries(
    Object.entries(secret.data ?? {})
      .filter(([key]) => isModuleKey(key))
      .map(([key, value]) => [moduleFile(key), Buffer.from(value, "base64")]),
  );
}

/** The Secret with each module key's value read from its file and base64-encoded by Helm. */
export function templatedModuleSecret(secret: V1Secret, p: Placeholders): V1Secret {
  const data = Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [
      key,
      isModuleKey(key) ? p.value(`{{ .Files.Get "${moduleFile(key)}" | b64enc }}`) : value,
    ]),
  );
  return { ...secret, data };
}
