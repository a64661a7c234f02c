import { passwordFingerprint, scramVerifier, unsupportedPassword } from "./scram";

describe("scramVerifier", () => {
  // RFC 7677's test vector: user "user", password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==.
  it("matches RFC 7677's StoredKey and ServerKey", () => {
    const verifier = scramVerifier("pencil", Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64"));
    expect(verifier).toBe(
      "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=",
    );
  });

  it("salts each verifier anew", () => {
    expect(scramVerifier("pencil")).not.toBe(scramVerifier("pencil"));
  });

  it.each([
    ["", "it is empty"],
    ["pässword", "outside printable ASCII"],
    ["tab\there", "outside printable ASCII"],
  ])("refuses %j: %s", (password, why) => {
    expect(unsupportedPassword(password)).toContain(why);
    expect(() => scramVerifier(password)).toThrow(why);
  });

  it("fingerprints a password with SHA-256", () => {
    expect(passwordFingerprint("pencil")).toHaveLength(64);
    expect(passwordFingerprint("pencil")).not.toBe(passwordFingerprint("pencil2"));
  });
});
