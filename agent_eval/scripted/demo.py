"""The scenario `agent-eval demo` plays on the default kind's bundled sample tasks: a look with the tools
the mode offers, then a fixed guess per task family. Nothing is computed from the image or the truth."""

from __future__ import annotations

# A fixed guess per task family (matched on the question), nothing computed from the image.
GUESSES = [("maze", "A-B"), ("arrow", "C"), ("intersect", "B, C"), ("difference", "none"), ("", "12")]

# What the scripted model does with each mode's tools before it guesses.
LOOKS: dict[str, list[dict]] = {
    "none": [],
    "image": [
        {
            "say": "Let me enlarge the top-left corner.",
            "call": "inspect",
            "input": {"views": [{"x": 0, "y": 0, "width": 256, "height": 192}], "grid": 64},
        }
    ],
    "python": [
        {
            "say": "Let me measure the image.",
            "call": "shell",
            "input": {
                "command": 'python3 -c "from PIL import Image; import numpy as np; '
                "a = np.asarray(Image.open('image.png').convert('L')); "
                "print(a.shape, int((a < 128).sum()), 'dark pixels')\""
            },
        },
        {"call": "inspect", "input": {"views": [{"x": 0, "y": 0, "width": 256, "height": 192}]}},
    ],
}


def demo_scenario(tools: str) -> dict:
    """Look with the tools the mode offers, then give the fixed guess."""
    return {
        "rules": [
            {"match": match, "turns": LOOKS[tools] + [{"final": f"(scripted guess) <answer>{guess}</answer>"}]}
            for match, guess in GUESSES
        ]
    }
