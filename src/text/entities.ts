import type { MemoryNode } from "../domain/Node.js"
import { sequenceRatio } from "./sequenceMatcher.js"

// Entity normalisation, aliases and resolution (REFERENCE-BEHAVIOUR 4.7). Letters are Unicode-aware
// ("Kraków" stays "kraków"), which the reference's [a-z0-9] classes were not.

const DOMAIN = /^(?:https?:\/\/)?(?:www\.)?([\p{L}\p{N}-]+)(?:\.[\p{L}\p{N}-]+)+(?:\/.*)?$/u
const CORPORATE_SUFFIXES = new Set([
  "inc", "incorporated", "ltd", "limited", "llc", "plc", "corp", "corporation", "co", "company", "holdings",
  "group", "gmbh", "ag", "sa", "bv", "pty", "llp"
])

/**
 * The comparable form of a name: lower case; a domain or URL becomes its first label ("acme.com" →
 * "acme", "https://www.acme-corp.com/about" → "acme corp"); otherwise possessives, punctuation and
 * corporate suffixes go ("Acme Holdings Ltd" → "acme", "Acme's" → "acme").
 */
export const normalizeEntity = (text: string): string => {
  const lower = text.normalize("NFC").toLowerCase().trim()
  const domain = /\s/.test(lower) ? null : DOMAIN.exec(lower)
  if (domain !== null) return domain[1]!.replace(/-/g, " ").trim()
  const words = lower
    .replace(/['’]s\b/gu, "")
    .replace(/[^\p{L}\p{N}\s-]/gu, " ")
    .split(/\s+/)
    .filter((w) => w !== "" && w !== "-")
  while (words.length > 1 && CORPORATE_SUFFIXES.has(words[words.length - 1]!)) words.pop()
  return words.join(" ")
}

/** Lower-cased letter/digit runs: the tokens phrase matching works on. */
export const phraseTokens = (text: string): Array<string> =>
  text.normalize("NFC").toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []

const ENTITY_CONTENT = /^([A-Z][A-Z_]*): (.+)$/s

/** The label of an entity node (its entityType, else the `LABEL:` of its content), or null for a statement. */
export const entityLabel = (node: MemoryNode): string | null =>
  node.entityType ?? ENTITY_CONTENT.exec(node.content)?.[1] ?? null

/** True for entity nodes: an entity type, or content of the form `LABEL: name`. */
export const isEntityNode = (node: MemoryNode): boolean => entityLabel(node) !== null

/** The name of an entity node: its content without the label. */
export const entityName = (node: MemoryNode): string => ENTITY_CONTENT.exec(node.content)?.[2] ?? node.content

/** Every way an entity has been written: its name, then its aliases. */
export const surfaceForms = (node: MemoryNode): Array<string> => [entityName(node), ...node.aliases]

/** Labels agree when either is missing or they are equal. */
export const compatibleLabels = (a: string | null, b: string | null): boolean => a === null || b === null || a === b

/**
 * Records `text` as an alias of the entity: the updated node, or null when the text is already its name
 * or one of its aliases (compared as written, trimmed).
 */
export const registerAlias = (node: MemoryNode, text: string): MemoryNode | null => {
  const alias = text.trim()
  if (alias === "" || alias === entityName(node).trim() || node.aliases.includes(alias)) return null
  return { ...node, aliases: [...node.aliases, alias] }
}

export interface EntityMatch {
  readonly nodeId: string
  readonly via: "alias" | "containment" | "embedding"
}

const isSubset = (small: ReadonlyArray<string>, big: ReadonlySet<string>) => small.every((t) => big.has(t))

/**
 * The entity nodes of a graph indexed by normalised surface form, for resolving mentions. Kept up to
 * date as entities are created and aliases registered during a consolidation batch.
 */
export class EntityIndex {
  private readonly byForm = new Map<string, Array<string>>()
  private readonly byFirstToken = new Map<string, Map<string, Array<string>>>()
  private readonly nodes = new Map<string, MemoryNode>()

  constructor(nodes: Iterable<MemoryNode> = []) {
    for (const n of nodes) if (isEntityNode(n)) this.add(n)
  }

  /** Adds (or refreshes) an entity node and its surface forms. */
  add(node: MemoryNode): void {
    this.nodes.set(node.id, node)
    for (const form of surfaceForms(node)) {
      const norm = normalizeEntity(form)
      if (norm === "") continue
      const ids = this.byForm.get(norm)
      if (ids === undefined) this.byForm.set(norm, [node.id])
      else if (!ids.includes(node.id)) ids.push(node.id)
      const first = norm.split(" ")[0]!
      let forms = this.byFirstToken.get(first)
      if (forms === undefined) this.byFirstToken.set(first, (forms = new Map()))
      const list = forms.get(norm)
      if (list === undefined) forms.set(norm, [node.id])
      else if (!list.includes(node.id)) list.push(node.id)
    }
  }

  get(id: string): MemoryNode | undefined {
    return this.nodes.get(id)
  }

  all(): IterableIterator<MemoryNode> {
    return this.nodes.values()
  }

  /** Every (normalised form, label) known, for spotting known names in new text. */
  forms(): Array<{ readonly form: string; readonly label: string | null }> {
    const out: Array<{ form: string; label: string | null }> = []
    for (const [form, ids] of this.byForm) {
      const n = this.nodes.get(ids[0]!)
      out.push({ form, label: n === undefined ? null : entityLabel(n) })
    }
    return out
  }

  private compatible(ids: ReadonlyArray<string>, label: string | null, accept: (n: MemoryNode) => boolean) {
    return ids.filter((id) => {
      const n = this.nodes.get(id)
      return n !== undefined && accept(n) && compatibleLabels(entityLabel(n), label)
    })
  }

  /**
   * Resolves a mention to an existing entity: (1) an exact normalised alias with a compatible label;
   * (2) unambiguous containment: forms sharing the first token whose token sets nest and differ by at
   * most 2 tokens, accepted only when exactly one compatible node qualifies ("John" with John Smith and
   * John Doe known → none). `accept` restricts the nodes considered (e.g. to a scope).
   */
  resolveByName(text: string, label: string | null, accept: (n: MemoryNode) => boolean = () => true): EntityMatch | null {
    const norm = normalizeEntity(text)
    if (norm === "") return null
    const exact = this.compatible(this.byForm.get(norm) ?? [], label, accept)
    if (exact.length > 0) return { nodeId: exact[0]!, via: "alias" }
    const tokens = norm.split(" ")
    const mine = new Set(tokens)
    const found = new Set<string>()
    for (const [form, ids] of this.byFirstToken.get(tokens[0]!) ?? []) {
      const theirs = form.split(" ")
      if (Math.abs(theirs.length - tokens.length) > 2) continue
      const nested = tokens.length <= theirs.length ? isSubset(tokens, new Set(theirs)) : isSubset(theirs, mine)
      if (!nested) continue
      for (const id of this.compatible(ids, label, accept)) found.add(id)
    }
    return found.size === 1 ? { nodeId: [...found][0]!, via: "containment" } : null
  }

  /**
   * (3) The embedding link: among entity nodes of the same label whose vectors (same model) score at
   * least `threshold` against the mention's vector, best first, the first whose name is at least 0.3
   * similar as a character sequence (difflib ratio), so "Jon" never links to "Jonathan Appleseed Ltd".
   */
  resolveByEmbedding(
    text: string,
    label: string | null,
    vector: Float32Array,
    modelId: string,
    threshold: number,
    accept: (n: MemoryNode) => boolean = () => true
  ): EntityMatch | null {
    const scored: Array<{ id: string; score: number }> = []
    for (const n of this.nodes.values()) {
      if (n.embedding === null || n.embedModel !== modelId || n.embedding.length !== vector.length) continue
      if (!accept(n) || entityLabel(n) !== label) continue
      let dot = 0
      for (let d = 0; d < vector.length; d++) dot += vector[d]! * n.embedding[d]!
      if (dot >= threshold) scored.push({ id: n.id, score: dot })
    }
    scored.sort((a, b) => b.score - a.score)
    const mention = text.toLowerCase().trim()
    for (const s of scored) {
      const n = this.nodes.get(s.id)!
      if (sequenceRatio(mention, entityName(n).toLowerCase().trim()) >= 0.3) return { nodeId: s.id, via: "embedding" }
    }
    return null
  }
}

/**
 * The entities (from `pool`) a statement mentions: those with a normalised surface form occurring as a
 * contiguous token phrase in the statement. Single tokens shorter than 3 characters never count.
 */
export const mentionedEntities = (content: string, pool: Iterable<MemoryNode>): Array<string> => {
  const tokens = phraseTokens(content)
  if (tokens.length === 0) return []
  const positions = new Map<string, Array<number>>()
  tokens.forEach((t, i) => {
    const list = positions.get(t)
    if (list === undefined) positions.set(t, [i])
    else list.push(i)
  })
  const hits: Array<string> = []
  for (const node of pool) {
    const found = surfaceForms(node).some((form) => {
      const alias = phraseTokens(normalizeEntity(form))
      if (alias.length === 0 || (alias.length === 1 && alias[0]!.length < 3)) return false
      return (positions.get(alias[0]!) ?? []).some((p) => alias.every((t, k) => tokens[p + k] === t))
    })
    if (found) hits.push(node.id)
  }
  return hits
}
