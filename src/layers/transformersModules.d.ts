// The transformers.js module a local model loads (src/layers/localModel.ts): the package declares types for
// its root only. Its shape is spelled out where it is used.
declare module "@xenova/transformers/src/tokenizers.js"
