import type { MemoryNode } from "../domain/Node.js"
import { attributeMentions } from "./attributes.js"
import { statementKey } from "./canonical.js"
import { entityLabel, normalizeEntity, surfaceForms } from "./entities.js"

// The keys a store indexes each node under so consolidation can ask for the nodes a batch may touch
// instead of reading the whole graph (services/GraphStore `nodesByKeys`, `entityForms`):
//   s:<statement key hash>  a statement (any status): exact restatements
//   h:<attribute head>      a statement stating a value of that attribute (text/attributes): slot updates
//   t:<first token>         an entity with a surface form starting with that token: alias and containment
//   f:<form>\t<label>       an entity's normalised surface form and label, in the node's order: known names

/** A node's lookup keys, in a fixed order (an entity's forms in surfaceForms order), without repeats. */
export const lookupKeys = (node: MemoryNode): Array<string> => {
  const keys = new Set<string>()
  const label = entityLabel(node)
  if (label === null) {
    keys.add(statementKeyLookup(statementKey(node.content)))
    for (const m of attributeMentions(node.content)) keys.add(headLookup(m.head))
    return [...keys]
  }
  for (const form of surfaceForms(node)) {
    const norm = normalizeEntity(form)
    if (norm === "") continue
    keys.add(firstTokenLookup(norm))
    keys.add(`${FORM}${norm}\t${label}`)
  }
  return [...keys]
}

/**
 * A statement key as a short hash (a key is the whole normalised statement: stored as it is it would double
 * the index). A collision only adds a node to the part a batch reads; the plan compares the keys themselves.
 */
export const statementKeyLookup = (key: string): string => `s:${hash32(key, 0x811c9dc5)}${hash32(key, 0x01000193)}`

// 32-bit FNV-1a from `seed`, base 36.
const hash32 = (s: string, seed: number): string => {
  let h = seed
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(36)
}
export const headLookup = (head: string): string => `h:${head}`
/** The lookup key of the entities whose forms share the first token of `norm` (a normalised name). */
export const firstTokenLookup = (norm: string): string => `t:${norm.split(" ")[0]!}`

/** The prefix of form keys: every key from FORM up to (not including) FORM_END is one. */
export const FORM = "f:"
export const FORM_END = "f;"

/** A form key back to its form and label. */
export const formOfKey = (key: string): { readonly form: string; readonly label: string } => {
  const tab = key.lastIndexOf("\t")
  return { form: key.slice(FORM.length, tab), label: key.slice(tab + 1) }
}

/** Form keys in store order → each form once, with the label of its first node (EntityIndex.forms). */
export const firstForms = (keys: Iterable<string>): Array<{ readonly form: string; readonly label: string }> => {
  const seen = new Map<string, string>()
  for (const key of keys) {
    const { form, label } = formOfKey(key)
    if (!seen.has(form)) seen.set(form, label)
  }
  return [...seen].map(([form, label]) => ({ form, label }))
}
