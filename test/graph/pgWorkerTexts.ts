// What each worker of postgresConcurrency.test.ts logs (shared by the worker and the test).

/** Messages each worker hard-deletes once consolidated (a slot of their own: the backup host, gone at the end). */
export const isDeleted = (i: number): boolean => i % 50 === 25

/** Message `i` of worker `w`: three shared slots (where I live, the staging host, the deleted backup host), every text unique. */
export const messageText = (w: number | string, i: number): string =>
  isDeleted(i) ? `The backup host is bk-${w}-${i}` : i % 2 === 0 ? `I live in Town${w}x${i}` : `The staging host is stg-${w}-${i}`
