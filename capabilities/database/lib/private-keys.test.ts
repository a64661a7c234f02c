import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { KEY_LIMIT, heldKeys, privateKeyOf, publicKeyDerOf } from "./private-keys";
import { newKeyPair } from "./x509";

const foreignPem = () =>
  generateKeyPairSync("ec", { namedCurve: "prime256v1" })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();

describe("private keys by PEM", () => {
  it("a key generated here is known at once, with its public key", () => {
    const pair = newKeyPair();
    expect(publicKeyDerOf(pair.key).equals(pair.publicKeyDer)).toBe(true);
    expect(privateKeyOf(pair.key).asymmetricKeyType).toBe("ec");
  });

  it("a key from elsewhere is parsed once and gives the same object after", () => {
    const pem = foreignPem();
    const key = privateKeyOf(pem);
    expect(privateKeyOf(pem)).toBe(key);
    expect(
      publicKeyDerOf(pem).equals(createPublicKey(key).export({ type: "spki", format: "der" })),
    ).toBe(true);
  });

  it("text that is no key throws, and is not remembered", () => {
    const before = heldKeys();
    expect(() =>
      privateKeyOf("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
    ).toThrow();
    expect(heldKeys()).toBe(before);
  });

  it("holds at most its limit, the oldest going first", () => {
    const first = foreignPem();
    const key = privateKeyOf(first);
    for (let i = 0; i < KEY_LIMIT; i++) newKeyPair();
    expect(heldKeys()).toBe(KEY_LIMIT);
    expect(privateKeyOf(first)).not.toBe(key); // parsed again: it had gone
  });
});
