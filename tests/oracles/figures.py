"""What a figure must be to go in a paper, checked on the file written."""

from PIL import Image

from volsched import plots


def fits_a_page(path) -> None:
    """The PNG at ``path`` is at most a page wide (:data:`volsched.plots.MAX_WIDTH_PX`)."""
    width, _ = Image.open(path).size
    assert width <= plots.MAX_WIDTH_PX, (path, width)
