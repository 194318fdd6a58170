"""Active-observation answers built from the truth, for scripted runs."""
from agent_eval.benchmarks.activeobs.geometry import (
    pano_box_to_view,
    view_px_to_norm,
    x_to_angle,
)


def evidence_for(item, shift_deg: float = 0.0) -> dict:
    """A correct evidence pointer from the truth (shift it to make it wrong)."""
    frame = sorted(item.boxes)[len(item.boxes) // 2]
    box = item.boxes[frame]
    angle = x_to_angle((box[0] + box[2]) / 2, item.width)
    view = pano_box_to_view(box, angle, item.width)
    bbox = [round(v) for v in view_px_to_norm(view)]
    return {"frame": frame, "angle": round((angle + shift_deg) % 360, 2), "bbox": bbox}
