"""What the model reads about each tool. Kept together so both front ends say the same thing."""

from agent_eval.tools.imagetools.ops import DEFAULT_SIZE, MAX_SAMPLES, MAX_SIZE, MAX_VIEWS, MIN_SIZE
from agent_eval.tools.imagetools.palette import ALPHABET

INSPECT = f"""Look at the image, or exact parts of it, enlarged.

Each view is an exact rectangular crop in original-image pixel coordinates (x, y = top-left corner,
x to the right, y downwards; width and height in pixels). It is enlarged (or shrunk) with
nearest-neighbour resampling, so no blurring or new colours, until its longer side is `size` pixels.
Omit a view's fields to get the whole image. Up to {MAX_VIEWS} views per call, e.g.
views=[{{"x": 0, "y": 0, "width": 100, "height": 50}}, {{"x": 100, "y": 0, "width": 100, "height": 50}}].
Set `grid` to draw lines every `grid` original pixels, labelled with original-image coordinates in
margins above and left of the view, to help choose the next crop.
Returns, per view, JSON metadata (region, scale, output size, saved copy) followed by the image."""

READ_PIXELS = f"""Read exact pixel colours from a region as a text grid.

The region (default: the whole image) is split into `rows` x `columns` equal bins (default: up to
64 x 64, and never more bins than pixels); the pixel at the centre of each bin is read. Returns a
palette mapping symbols to '#RRGGBB' colours ('#RRGGBBAA' if not opaque), the x and y coordinates
sampled, and one string of symbols per row, top to bottom. A colour keeps the same symbol across calls
for this image session. At most {MAX_SAMPLES} samples per call and {len(ALPHABET)} distinct colours per
session: suited to diagrams, grids and flat-colour images, not photographs. To read every pixel of
a region, use rows = height and columns = width."""

INFO = """Basic facts about the image: width and height in pixels, mode, file format, number of distinct
colours, the most common exact colours (with pixel counts and fractions) and a coarse colour histogram."""

PATH = "Image file relative to the working directory; omit for the task image. Also works on images you saved yourself."
VIEWS = "Crops to show; omit for one view of the whole image. Each view: x, y, width, height (all optional)."
SIZE = f"Longer side of each view in output pixels, {MIN_SIZE} to {MAX_SIZE}; default {DEFAULT_SIZE}."
GRID = "Grid line spacing in original-image pixels; 0 or omitted for no grid."
X = "Left edge of the region, in original-image pixels (0 = left side of the image). Default 0."
Y = "Top edge of the region, in original-image pixels (0 = top of the image). Default 0."
WIDTH = "Width of the region in pixels. Default: to the right edge of the image."
HEIGHT = "Height of the region in pixels. Default: to the bottom edge of the image."
ROWS = "Number of bins down the region (1 to its height). Default min(height, 64)."
COLUMNS = "Number of bins across the region (1 to its width). Default min(width, 64)."
