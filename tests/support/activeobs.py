"""Active-observation scenes and answers built from the truth, for the tests."""

from __future__ import annotations

from agent_eval.benchmarks.activeobs.geometry import (
    pano_box_to_view,
    view_px_to_norm,
    x_to_angle,
)
from agent_eval.benchmarks.activeobs.scene import Person, Scene, Segment


def evidence_for(item, shift_deg: float = 0.0) -> dict:
    """A correct evidence pointer from the truth (shift it to make it wrong)."""
    frame = sorted(item.boxes)[len(item.boxes) // 2]
    box = item.boxes[frame]
    angle = x_to_angle((box[0] + box[2]) / 2, item.width)
    view = pano_box_to_view(box, angle, item.width)
    bbox = [round(v) for v in view_px_to_norm(view)]
    return {"frame": frame, "angle": round((angle + shift_deg) % 360, 2), "bbox": bbox}


def seam_scene(n_frames: int = 60) -> Scene:
    """One person walking across the 0°/360° seam, one sitting at 180°."""
    walker = Person("p1", "red", "black", "blue", True, 2.5, (Segment(0, n_frames - 1, "walking", 350.0, 370.0),))
    sitter = Person("p2", "green", "grey", None, False, 4.0, (Segment(0, n_frames - 1, "sitting", 180.0, 180.0),))
    return Scene("seam", n_frames, (walker, sitter), seed=5)
