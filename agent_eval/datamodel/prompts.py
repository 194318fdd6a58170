"""Prompt templates: one YAML file per tool mode in `prompts/<benchmark>/`, shared by both agents."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class PromptTemplate:
    mode: str
    text: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


def load_template(mode: str, prompts_dir: Path) -> PromptTemplate:
    path = prompts_dir / f"{mode}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("template"), str):
        raise ValueError(f"{path}: needs a 'template' string")
    return PromptTemplate(mode=mode, text=data["template"])
