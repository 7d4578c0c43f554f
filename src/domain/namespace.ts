/** `user:alice`, `team:payments`: a kind, a colon, a name; no commas or spaces (they separate the read list). */
const NAMESPACE = /^[a-z][a-z0-9_-]*:[A-Za-z0-9._@+-]+$/

/** True for a well-formed namespace name (at most 200 characters). */
export const validNamespace = (ns: string): boolean => ns.length <= 200 && NAMESPACE.test(ns)
