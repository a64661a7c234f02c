import { expiryWarning, notAfterOf } from "./certificate-expiry";
import { tlsMaterial } from "../pki/database-tls";

const DAY = 86_400_000;
const end = new Date("2027-12-05T12:00:00Z");

describe("the webhook certificate's end", () => {
  it.each<[string, number, RegExp | undefined]>([
    ["a year ahead: nothing to say", 365, undefined],
    ["31 days ahead: nothing yet", 31, undefined],
    [
      "30 days ahead: a warning with the days left",
      30,
      /ends at 2027-12-05T12:00:00.000Z, in 30 days/,
    ],
    ["a day ahead", 1, /in 1 days/],
    ["ended", -1, /ended at 2027-12-05T12:00:00.000Z/],
  ])("%s", (_, daysLeft, expected) => {
    const warning = expiryWarning(end, new Date(end.getTime() - daysLeft * DAY));
    if (expected) expect(warning).toMatch(expected);
    else expect(warning).toBeUndefined();
  });

  it("is read from the certificate itself", () => {
    const { tls } = tlsMaterial("ca", {}, ["a.example"], new Date("2026-12-05T00:00:00Z"));
    const notAfter = notAfterOf(tls.serverCert);
    expect(notAfter.getTime()).toBeGreaterThan(new Date("2027-01-01T00:00:00Z").getTime());
    expect(() => notAfterOf("not a certificate")).toThrow();
  });
});
