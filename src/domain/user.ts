export const USER_ROLES = ["ADMIN", "DEVELOPER", "STAFF", "CUSTOMER", "WHOLESALE", "FUNDRAISER"] as const;
export type UserRole = (typeof USER_ROLES)[number];

export function isUserRole(value: string): value is UserRole {
  return (USER_ROLES as readonly string[]).includes(value);
}

export interface User {
  id: string;
  email: string;
  name: string | null;
  /** Null for accounts made through an identity provider: they cannot sign in with a password. */
  passwordHash: string | null;
  role: UserRole;
  image: string | null;
  isEmailVerified: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewUser {
  id: string;
  email: string;
  name?: string | null;
  passwordHash: string | null;
  role: UserRole;
  image?: string | null;
  isEmailVerified: boolean;
  at: Date;
}

/** A person's name as the shop keeps it and searches it: in Unicode's composed form (NFC), trimmed. */
const nameAsKept = (name: string): string => name.normalize("NFC").trim();

/** A new account: e-mail normalized, the name in Unicode's composed form (NFC), an empty one treated as none. */
export function newUser(fields: NewUser): User {
  return {
    id: fields.id,
    email: normalizeEmail(fields.email),
    name: (fields.name && nameAsKept(fields.name)) || null,
    passwordHash: fields.passwordHash,
    role: fields.role,
    image: fields.image ?? null,
    isEmailVerified: fields.isEmailVerified,
    createdAt: fields.at,
    updatedAt: fields.at,
  };
}

/** E-mail addresses are compared trimmed and lowercased, everywhere. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/**
 * The shape every account's e-mail must have (the HTTP edge checks the same with zod's stricter rule):
 * printable ASCII as given, before it is lowercased, as lowercasing makes ASCII of some other letters
 * (the Kelvin sign U+212A becomes `k`), so a look-alike would name another's account (found by an attack).
 */
export function emailProblem(email: string): string | null {
  if (!/^[\x21-\x7e]+$/.test(email.trim())) return "Invalid email address";
  const normalized = normalizeEmail(email);
  // RFC 5321: at most 64 characters before the @, 254 in all.
  const local = normalized.slice(0, normalized.lastIndexOf("@"));
  return normalized.length <= 254 && local.length <= 64 && EMAIL_SHAPE.test(normalized) ? null : "Invalid email address";
}

/** A person's name is one line of at most this many characters, as the HTTP routes take it. */
export const NAME_MAX_CHARACTERS = 100;

/**
 * What is wrong with a person's name given outside HTTP (the CLI; the routes check the same with
 * zod and the input checks): a line break splits the line a list prints it on, and a control
 * character (C0, DEL, C1) may act on the terminal that shows it.
 */
export function nameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (/[\r\n\u2028\u2029]/.test(trimmed)) return "must be one line";
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/.test(trimmed)) return "must not contain control characters";
  if ([...trimmed].length > NAME_MAX_CHARACTERS) return `must be at most ${NAME_MAX_CHARACTERS} characters`;
  return null;
}

/**
 * A name an identity provider gives (Apple's is posted by the browser, so anyone may write it): kept,
 * trimmed and in NFC, only if it would pass as a name typed at registration (nameProblem, and no
 * lone surrogate); otherwise the account gets none, which its owner may set. Never a reason to
 * refuse the sign-in.
 */
export function providerName(name: string | null | undefined): string | null {
  if (!name?.isWellFormed()) return null;
  const kept = nameAsKept(name);
  return kept !== "" && nameProblem(kept) === null ? kept : null;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The spec's limits say at least 8 characters, decisions §5 "8 to 72 bytes": both hold. bcrypt reads
 * at most 72 bytes; a longer password would be silently cut, so it is refused. Decisions §10: a
 * password on the list of common passwords (compared case-insensitively) is refused too.
 */
export const PASSWORD_MIN_CHARACTERS = 8;
export const PASSWORD_MAX_BYTES = 72;

/**
 * A password as it is hashed and checked: in Unicode's compatibility form (NFKC), as NIST SP
 * 800-63B asks, so one password typed on two keyboards (`é` composed or decomposed, fullwidth
 * letters) is the same password. Its rules (passwordProblem) hold of this form, which is what
 * bcrypt reads.
 */
export const passwordAsKept = (password: string): string => password.normalize("NFKC");

/** What is wrong with a password (passwordAsKept) someone is choosing; null when nothing. */
export function passwordProblem(password: string, isCommon: (lowercased: string) => boolean): string | null {
  if ([...password].length < PASSWORD_MIN_CHARACTERS) return `Password must be at least ${PASSWORD_MIN_CHARACTERS} characters`;
  if (new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES) return `Password must be at most ${PASSWORD_MAX_BYTES} bytes`;
  if (password.trim() === "") return "Password must not be only spaces";
  if (isCommon(password.toLowerCase())) return "Password is too common; choose one that is harder to guess";
  return null;
}
