/**
 * What the fuzz namespace holds before the cases run: the Secrets the bases' object stores name
 * (a recovery source's must exist; see bases.ts), so a case is refused for what it changed.
 */
export const FUZZ_SECRETS = ["s3-creds", "s3-ca", "minio"] as const;

/** A Secret with the keys the bases' stores name. */
export const secretManifest = (namespace: string, name: string): object => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace },
  stringData: {
    id: "fuzz",
    secret: "fuzz-secret",
    accessKeyId: "fuzz",
    secretAccessKey: "fuzz-secret",
    "ca.crt": "not a certificate: admission does not read it",
  },
});
