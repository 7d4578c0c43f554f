import { query } from "../view/html.js"

// The page talks to its server only: every call carries the run's CSRF token (from the page's meta tag),
// and a failure is the server's one-line message.

const token = (): string => document.querySelector<HTMLMetaElement>('meta[name="awhm-csrf"]')?.content ?? ""

const read = async <T>(response: Response): Promise<T> => {
  const body = (await response.json().catch(() => ({ error: `the server answered ${response.status}` }))) as T & { error?: string }
  if (!response.ok) throw new Error(body.error ?? `the server answered ${response.status}`)
  return body
}

/** GET /api/<path>?params. */
export const get = <T>(path: string, params: Readonly<Record<string, string | number | boolean | null | undefined>> = {}) =>
  fetch(`/api/${path}${query(params)}`, { headers: { "x-awhm-csrf": token() } }).then((r) => read<T>(r))

/** POST /api/<path> with a JSON body. */
export const post = <T>(path: string, body: unknown) =>
  fetch(`/api/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-awhm-csrf": token() },
    body: JSON.stringify(body)
  }).then((r) => read<T>(r))
