"""Row-major steps of a device size, written out for the Spyre tests' replays of
torch-spyre's copy (independent of ``layoutalg.core.tiling``)."""


def row_major_steps(sizes) -> list[int]:
    """``[60, 20, 5, 1]``-style steps: the last dim fastest.

    >>> row_major_steps((2, 3, 4, 5))
    [60, 20, 5, 1]
    """
    steps, running = [], 1
    for n in reversed(sizes):
        steps.append(running)
        running *= n
    return steps[::-1]
