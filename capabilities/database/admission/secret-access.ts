/**
 * A Database may only name Secrets its author may read (issue 28, finding 5): otherwise anyone
 * who may create Databases in a namespace reads every Secret there through pods running an image
 * of their choice. Asked of the apiserver's authorizer with a SubjectAccessReview as the
 * requesting user (get on the Secret by name), so RBAC, webhooks and any other authorizer decide
 * exactly as they would for the user's own `kubectl get secret`.
 *
 * Fails closed: when the review cannot be made (slow or failing apiserver), the request is
 * refused with a message saying so. A check that admits when it cannot ask is no check; the
 * author retries.
 */
import { CheckedDatabase, Denial, deny } from "./rules/types";
import { referencesToReview } from "./secret-references";

/** Who sent the request, as the AdmissionReview's userInfo carries it. */
export interface RequestingUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AccessReviewer {
  /** Whether `user` may get Secret `name` in `namespace`; undefined when it could not be asked. */
  mayGetSecret(user: RequestingUser, namespace: string, name: string): Promise<boolean | undefined>;
}

/** A request as this check sees it: the Database sent, the stored one on UPDATE, who sent it. */
export interface AuthoredDatabase {
  db: CheckedDatabase;
  old?: CheckedDatabase;
  namespace: string;
  user: RequestingUser;
}

/** Denials for each newly referenced Secret the author may not read (or that could not be asked). */
export async function secretAccessDenials(
  { db, old, namespace, user }: AuthoredDatabase,
  reviewer: AccessReviewer,
  operatorPullSecrets: readonly string[],
): Promise<Denial[]> {
  const who = user.username ?? "the requesting user";
  const checks = referencesToReview(db, old, operatorPullSecrets).map(async ref => {
    const allowed = await reviewer.mayGetSecret(user, namespace, ref.name);
    if (allowed === true) return [];
    return [
      deny(
        ref.field,
        allowed === false
          ? `${who} may not get Secret "${ref.name}" in namespace "${namespace}", and a Database may only name Secrets its author may read`
          : `could not confirm that ${who} may get Secret "${ref.name}" in namespace "${namespace}" (the SubjectAccessReview did not answer); try again`,
      ),
    ];
  });
  return (await Promise.all(checks)).flat();
}
