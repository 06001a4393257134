//! The character grid views are drawn into.

use rayon::prelude::*;

/// What a cell shows, as a role; the TUI picks the colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ink {
    /// Nothing drawn (sky, background).
    Empty,
    /// Terrain, by brightness level 0 (dark) to 7 (bright).
    Ground(u8),
    /// The body outline.
    Body,
    /// The body's front marker.
    Heading,
    /// Leg bones.
    Leg,
    /// Leg joints.
    Joint,
    /// A planted foot.
    FootGrounded,
    /// A foot in the air.
    FootSwinging,
    /// Where a foot wants to go.
    Foothold,
    /// The support polygon of the planted feet and the body centre's
    /// projection onto it (top view).
    Support,
    /// The leg the leg inspector shows: drawn in `#` so it stands out
    /// without colour too.
    Inspected,
}

/// One character cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// The character.
    pub ch: char,
    /// Its role (colour).
    pub ink: Ink,
    /// Distance from the viewer; nearer cells win.
    pub depth: f32,
}

impl Cell {
    /// A blank cell at infinite depth.
    pub const EMPTY: Cell = Cell {
        ch: ' ',
        ink: Ink::Empty,
        depth: f32::INFINITY,
    };
}

/// A width × height grid of cells, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    width: usize,
    height: usize,
    cells: Vec<Cell>,
}

impl Grid {
    /// A blank grid.
    pub fn new(width: usize, height: usize) -> Grid {
        Grid {
            width,
            height,
            cells: vec![Cell::EMPTY; width * height],
        }
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The cell at (column, row), if inside.
    pub fn get(&self, x: usize, y: usize) -> Option<&Cell> {
        (x < self.width && y < self.height).then(|| &self.cells[y * self.width + x])
    }

    /// Every row, as one run to paint.
    pub fn all_rows(&mut self) -> Rows<'_> {
        Rows {
            first: 0,
            end: self.height,
            width: self.width,
            cells: &mut self.cells,
        }
    }

    /// The rows in runs of `rows_each` (the last may be shorter), top to
    /// bottom, for rayon: runs painted in parallel, each by one thread.
    pub fn par_runs(&mut self, rows_each: usize) -> impl IndexedParallelIterator<Item = Rows<'_>> {
        let width = self.width;
        let rows_each = rows_each.max(1);
        self.cells
            .par_chunks_mut((width * rows_each).max(1))
            .enumerate()
            .map(move |(k, cells)| Rows {
                first: k * rows_each,
                end: k * rows_each + cells.len() / width.max(1),
                width,
                cells,
            })
    }

    /// Writes `cell` at (x, y) if it is inside and nearer than what is there.
    pub fn plot(&mut self, x: i32, y: i32, cell: Cell) {
        self.all_rows().plot(x, y, cell);
    }

    /// Sets the cell at (`x`, `y`) whatever is there (what a view knows to
    /// replace, such as ground a carve removed); outside the grid, nothing.
    pub fn put(&mut self, x: usize, y: usize, cell: Cell) {
        if x < self.width && y < self.height {
            self.cells[y * self.width + x] = cell;
        }
    }

    /// Draws a line from `a` to `b` (column, row, depth), with a character
    /// that follows its direction on screen.
    pub fn line(&mut self, a: (f32, f32, f32), b: (f32, f32, f32), ink: Ink) {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        if !(dx.is_finite() && dy.is_finite()) {
            return;
        }
        // Cells are about twice as tall as wide: weigh rows double for the
        // apparent slope.
        let ch = if ink == Ink::Inspected {
            '#'
        } else {
            line_char(dx, dy * 2.0)
        };
        let steps = dx.abs().max(dy.abs()).ceil().clamp(1.0, 4096.0) as usize;
        for i in 0..=steps {
            let t = i as f32 / steps as f32;
            let x = a.0 + dx * t;
            let y = a.1 + dy * t;
            let depth = a.2 + (b.2 - a.2) * t;
            self.plot(x.round() as i32, y.round() as i32, Cell { ch, ink, depth });
        }
    }

    /// The grid as text, one line per row (for tests and debugging).
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity((self.width + 1) * self.height);
        for row in self.cells.chunks(self.width.max(1)) {
            out.extend(row.iter().map(|c| c.ch));
            out.push('\n');
        }
        out
    }
}

/// A run of whole rows of a [`Grid`], painted apart from the others (on
/// another thread): rows `first..end()`, addressed by their rows in the grid.
#[derive(Debug)]
pub struct Rows<'a> {
    first: usize,
    /// One past the last row (kept, not divided out at every plot).
    end: usize,
    width: usize,
    cells: &'a mut [Cell],
}

impl Rows<'_> {
    /// The run's first row.
    pub fn first(&self) -> usize {
        self.first
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// One past the run's last row.
    pub fn end(&self) -> usize {
        self.end
    }

    /// Each row's index in the grid and its cells, top to bottom.
    pub fn each_row(&mut self) -> impl Iterator<Item = (usize, &mut [Cell])> {
        let first = self.first;
        self.cells
            .chunks_mut(self.width.max(1))
            .enumerate()
            .map(move |(k, cells)| (first + k, cells))
    }

    /// [`Grid::plot`] within the run: outside it, nothing.
    pub fn plot(&mut self, x: i32, y: i32, cell: Cell) {
        if x < 0 || y < self.first as i32 || x as usize >= self.width || y as usize >= self.end() {
            return;
        }
        let slot = &mut self.cells[(y as usize - self.first) * self.width + x as usize];
        if cell.depth <= slot.depth {
            *slot = cell;
        }
    }
}

/// The ASCII character closest to a screen direction (rows grow downward).
fn line_char(dx: f32, dy: f32) -> char {
    let angle = (-dy).atan2(dx).to_degrees().rem_euclid(180.0);
    match angle {
        a if !(22.5..157.5).contains(&a) => '-',
        a if a < 67.5 => '/',
        a if a < 112.5 => '|',
        _ => '\\',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearer_cells_win_and_outside_plots_are_ignored() {
        let mut g = Grid::new(3, 2);
        g.plot(
            1,
            1,
            Cell {
                ch: 'a',
                ink: Ink::Leg,
                depth: 5.0,
            },
        );
        g.plot(
            1,
            1,
            Cell {
                ch: 'b',
                ink: Ink::Leg,
                depth: 9.0,
            },
        );
        g.plot(
            1,
            1,
            Cell {
                ch: 'c',
                ink: Ink::Leg,
                depth: 2.0,
            },
        );
        g.plot(
            -1,
            0,
            Cell {
                ch: 'x',
                ink: Ink::Leg,
                depth: 0.0,
            },
        );
        g.plot(
            3,
            0,
            Cell {
                ch: 'x',
                ink: Ink::Leg,
                depth: 0.0,
            },
        );
        assert_eq!(g.to_text(), "   \n c \n");
    }

    #[test]
    fn lines_pick_characters_by_direction() {
        let mut g = Grid::new(5, 5);
        g.line((0.0, 0.0, 0.0), (4.0, 0.0, 0.0), Ink::Leg);
        g.line((0.0, 4.0, 0.0), (0.0, 1.0, 0.0), Ink::Leg);
        assert_eq!(g.to_text(), "-----\n|    \n|    \n|    \n|    \n");
        assert_eq!(line_char(1.0, -1.0), '/');
        assert_eq!(line_char(1.0, 1.0), '\\');
    }

    #[test]
    fn degenerate_lines_do_not_panic() {
        let mut g = Grid::new(2, 2);
        g.line((f32::NAN, 0.0, 0.0), (1.0, 1.0, 0.0), Ink::Leg);
        g.line((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), Ink::Leg);
        g.line((-1e9, -1e9, 0.0), (1e9, 1e9, 0.0), Ink::Leg);
        let mut empty = Grid::new(0, 0);
        empty.line((0.0, 0.0, 0.0), (3.0, 3.0, 0.0), Ink::Leg);
        assert_eq!(empty.to_text(), "");
    }
}
