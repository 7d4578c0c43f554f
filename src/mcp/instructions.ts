/** What the client is told at initialize, for the model: when to use which tool. */
export const INSTRUCTIONS = [
  "awhm is the user's long-term memory, kept across sessions on this machine.",
  "Call memory_query before answering anything that may depend on earlier conversations: the user's preferences, facts about them or their projects, past decisions, names, dates. Pass the question in plain words.",
  "Call memory_log (role user, or assistant, and the exact text) when the user states a lasting fact, preference, decision or correction, so that later sessions know it.",
  "Results come best first, each with a score from 0 to 1 (higher is a better match, on one scale for every source) and its source: buffer (said in this session), graph (a consolidated memory), raw_log (an earlier message, verbatim). A superseded memory is outdated: prefer the current one.",
  "Call memory_delete_node only when the user asks to forget something."
].join("\n")
