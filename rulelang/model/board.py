"""Board topologies on a networkx graph.

A board is a zone whose cards sit on cells. Cells are nodes of a networkx graph:
- fixed topologies (a sized grid, a hex map of some radius, a track, a named
  graph) create every cell up front;
- open topologies (``grid 4``, ``grid 8``, ``hex``) grow: a cell becomes a node
  when a card is placed on it, linked to the occupied cells around it. Their
  empty neighbouring cells are found by lattice arithmetic.

Each cell holds a stack of cards (bottom first); most games keep one per cell.

A *piece* is a card lying on several cells at once (a two-square tile, a polyomino, a two-cell
building: its component says `covers N` or `covers [offsets]`). It is in the stack of each of its
cells, and the board remembers its cells (`pieces`: card id -> its cells, the first one first), so
that taking it from any of them frees them all. Its neighbours are the cells next to any of its
cells (`piece_neighbour_cells`). Shapes, their turns and where a piece may be laid are in
model/pieces.py.

A *layer* (`zone bases: board on map`) is a board with the same topology as another board (the
same cells and neighbours) and cards of its own; `layer_of` names the zone of its base board.
"""
from __future__ import annotations

from bisect import bisect_left
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

GRID4 = ((1, 0), (-1, 0), (0, 1), (0, -1))
GRID8 = GRID4 + ((1, 1), (1, -1), (-1, 1), (-1, -1))
# axial coordinates (q, r)
HEX6 = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


class Topology:
    """Geometry only: which cells exist and which are neighbours."""

    open = False

    def __init__(self, kind: str, neighbours: int = 8, width=None, height=None, radius=None,
                 length=None, loop=False, nodes=(), edges=(), shape=None, places=(), capacities=None):
        self.kind = kind
        self.shape = shape  # hex boards: "rhombus" or "rectangle" of width by height
        # places: every cell divided into named places (members of an enum, in order); a place
        # named in `capacities` holds at most that many cards, the others any number
        self.places = list(places)
        self.capacities = dict(capacities or {})
        self.neighbours = neighbours
        self.width, self.height, self.radius, self.length, self.loop = width, height, radius, length, loop
        self.nodes, self.edges = list(nodes), list(edges)
        self._neighbour_cache: dict = {}
        self._fixed = None  # see fixed_board()
        self.edge_cache: dict = {}  # the cells of each named side of a fixed board (geometry.edge)
        self.ray_cache: dict = {}  # (cell, dx, dy) -> the cells of that ray on the fixed board (BoardCells.ray)
        if kind == "grid":
            self.deltas = GRID8 if neighbours == 8 else GRID4
            self.open = width is None
        elif kind == "hex":
            self.deltas = HEX6
            self.open = radius is None and shape is None
        else:
            self.deltas = ()

    def origin(self):
        if self.kind in ("grid", "hex"):
            return (0, 0)
        if self.kind == "track":
            return 0
        return self.nodes[0] if self.nodes else None

    def initial_graph(self) -> nx.Graph:
        import networkx as nx  # imported when a match starts: checking a file does not need it

        g = nx.Graph()
        if self.kind == "grid" and not self.open:
            g.add_nodes_from((x, y) for x in range(self.width) for y in range(self.height))
        elif self.kind == "hex" and self.shape == "rhombus":  # q in 0..width-1 on every row r
            g.add_nodes_from((q, r) for r in range(self.height) for q in range(self.width))
        elif self.kind == "hex" and self.shape is not None:  # a rectangle: every other row shifted half a cell
            g.add_nodes_from((q - r // 2, r) for r in range(self.height) for q in range(self.width))
        elif self.kind == "hex" and not self.open:
            r = self.radius
            g.add_nodes_from((q, s) for q in range(-r, r + 1) for s in range(-r, r + 1) if abs(q + s) <= r)
        elif self.kind == "track":
            nx.add_path(g, range(self.length))
            if self.loop and self.length > 2:
                g.add_edge(self.length - 1, 0)
        elif self.kind == "graph":
            g.add_nodes_from(self.nodes)
            g.add_edges_from(self.edges)
        if self.deltas and not self.open:
            for cell in list(g.nodes):
                self.link(g, cell, g)
        return g

    def link(self, g: nx.Graph, cell, present) -> None:
        """Add to a grid or hex board's graph the edges from a cell to its neighbours among `present`."""
        for other in self.lattice_neighbours(cell):
            if other in present:
                g.add_edge(cell, other)

    def fixed_board(self):
        """A fixed board's graph, cells in order and neighbour table, made once per game and shared
        by every match (read only: a match copies the graph before changing it)."""
        if self._fixed is None:
            graph = self.initial_graph()
            self._fixed = (graph, sorted(graph.nodes, key=cell_sort_key), {})
        return self._fixed

    def lattice_neighbours(self, cell):
        found = self._neighbour_cache.get(cell)
        if found is None:
            x, y = cell
            found = self._neighbour_cache[cell] = [(x + dx, y + dy) for dx, dy in self.deltas]
        return found

    def distance(self, a, b, graph: nx.Graph) -> int:
        if self.kind == "grid":
            dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
            return max(dx, dy) if self.neighbours == 8 else dx + dy
        if self.kind == "hex":
            dq, dr = a[0] - b[0], a[1] - b[1]
            return (abs(dq) + abs(dr) + abs(dq + dr)) // 2
        import networkx as nx

        try:
            return nx.shortest_path_length(graph, a, b)
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return -1


class BoardCells:
    """The cells of one board zone: a networkx graph of its cells, and each cell's stack of cards.

    A fixed board's graph, sorted cells and neighbour table are the game's (``Topology.fixed_board``):
    a match only owns its stacks, so starting and copying a match builds no graph. An open board
    grows, so each match has its own graph, made from its stacks only when something asks for it
    (tables, renders, graph algorithms): playing needs only the stacks and lattice arithmetic."""

    def __init__(self, topology: Topology, layer_of: str | None = None):
        self.topology = topology
        self.layer_of = layer_of  # a layer's base board (its zone's key), or None
        self.pieces: dict = {}  # card id -> the cells it covers (a tuple), for cards lying on several cells
        if topology.open:
            # an open board's graph (its occupied cells and the lattice edges between them) is made
            # from the stacks when something asks for it (see graph), then kept up to date
            self._graph = None
            self._neighbour_table: dict = {}
            self._sorted_cells: list | None = None
            self._shared = False
            self.stacks: dict = {}
        else:
            self._graph, self._sorted_cells, self._neighbour_table = topology.fixed_board()
            self._shared = True
            # in cell order: while the board is the game's (_shared), walking the stacks walks the cells in order
            self.stacks = {cell: [] for cell in self._sorted_cells}
        # Kept up to date once asked for (each a _Sorted): the frontier, with how many occupied cells
        # each cell is next to (_touch); a fixed board's empty cells; a fixed board's cells by the
        # seat owning their top card (seat -> _Sorted, see owned_by)
        self._touch: dict | None = None
        self._front: _Sorted | None = None
        self._empty: _Sorted | None = None
        self._owned: dict | None = None
        # a fixed board's groups of touching cells per seat (owned_groups), kept up to date once asked
        # for: seat -> (cell -> its _Group); a seat's are made again after one of its cells leaves it
        self._groups: dict | None = None
        # the border (cells_around) of lists of cells asked about, by the list itself (border_of)
        self._borders: dict | None = None
        # the cards next to a cell, as cards_next_to lists them, until a card comes to or leaves a
        # cell next to it: rules ask it over and over (each card of a hand tried on each open cell,
        # each card's neighbours in a continuous rule's every pass)
        self._next_to: dict = {}
        # how many times a card came to or left a cell or a cell next to it, per cell, counted once
        # asked for (near_version): a value worked out from a card and its neighbours stays right
        # while its cell's count stays the same
        self._near: dict | None = None

    def copy(self, entities: list, neighbourhood: bool = False) -> "BoardCells":
        """The same cells with the same cards, each card replaced by the copy's card of the same id
        (entities[card.id]). With `neighbourhood`, the cards next to each cell and the counts of changes
        near each cell are kept too (saves.mark_state: the values remembered by neighbourhood,
        State.local_cache, stay right after a restore); a copy remembers no values, and needs neither."""
        new = BoardCells.__new__(BoardCells)
        new.topology = self.topology
        new.layer_of = self.layer_of
        new.pieces = dict(self.pieces)
        new._shared = self._shared
        if self._shared:
            new._graph, new._sorted_cells, new._neighbour_table = self._graph, self._sorted_cells, self._neighbour_table
        elif self.topology.open:
            new._graph, new._sorted_cells, new._neighbour_table = None, None, {}  # made again if asked for
        else:
            new._graph, new._sorted_cells, new._neighbour_table = self._graph.copy(), None, {}
        new.stacks = {cell: [entities[e.id] for e in stack] if stack else [] for cell, stack in self.stacks.items()}
        new._touch = None if self._touch is None else dict(self._touch)
        new._front = None if self._front is None else self._front.copy()
        new._empty = None if self._empty is None else self._empty.copy()
        new._owned = None if self._owned is None else {seat: cells.copy() for seat, cells in self._owned.items()}
        new._groups = None  # made again if asked for
        new._borders = None
        new._next_to = dict(self._next_to) if neighbourhood else {}
        new._near = dict(self._near) if neighbourhood and self._near is not None else None
        return new

    @property
    def graph(self) -> nx.Graph:
        g = self._graph
        if g is None:  # an open board's: its cells in the order they were filled, edges as place() adds them
            import networkx as nx

            g = nx.Graph()
            for cell in self.stacks:
                g.add_node(cell)
                self.topology.link(g, cell, g)
            self._graph = g
        return g

    def stack(self, cell) -> list:
        return self.stacks.get(cell, _EMPTY)

    def has_cell(self, cell) -> bool:
        if self.topology.open:
            return True
        try:  # a fixed board's stacks hold every cell of its graph (an empty list for an empty cell)
            return cell in self.stacks
        except TypeError:  # (a value that cannot be a cell: a list...)
            return False

    def place(self, cell, entity, bottom=False) -> None:
        if cell not in self.stacks and not self.topology.open:
            self._next_to.clear()  # a cell off a fixed board: its graph changes
        elif self._next_to:
            self._forget_next_to(cell)
        if cell not in self.stacks:
            self._groups = self._borders = None  # (new neighbours)
            if self._shared:  # a cell off a fixed board: this match gets its own graph from now on
                self._graph, self._neighbour_table, self._shared = self._graph.copy(), {}, False
            g = self._graph
            self._neighbour_table.clear()
            self._sorted_cells = None
            self.stacks[cell] = []
            if g is not None:
                g.add_node(cell)
                if self.topology.open:
                    self.topology.link(g, cell, self.stacks)
        if self._near is not None:
            self._changed_near(cell)
        stack = self.stacks[cell]
        if bottom:
            stack.insert(0, entity)
        else:
            stack.append(entity)
        if self._owned is not None and stack[-1] is entity:  # the card is the cell's new top
            below = stack[-2] if len(stack) > 1 else None
            self._top_owner_changed(cell, below.owner if below is not None else None, entity.owner)
        if len(stack) == 1:
            if self._touch is not None:
                self._occupied(cell)
            if self._empty is not None:
                self._empty.discard(cell)  # (a cell off a fixed board was not among them)

    def place_piece(self, cells, entity) -> None:
        """A card laid on several cells at once (a piece): in the stack of each of them."""
        for cell in cells:
            self.place(cell, entity)
        self.pieces[entity.id] = tuple(cells)

    def covered_cells(self, entity) -> list:
        """The cells a card on this board lies on: a piece's, first cell first; else its one cell."""
        covered = self.pieces.get(entity.id) if self.pieces else None
        return list(covered) if covered is not None else [entity.cell]

    def piece_neighbour_cells(self, entity) -> list:
        """The cells next to any cell of a card (a piece's own cells left out), in cell order."""
        covered = self.pieces.get(entity.id) if self.pieces else None
        if covered is None:
            return list(self.neighbour_cells(entity.cell))
        own = set(covered)
        return sort_cells({o for c in covered for o in self.neighbour_cells(c) if o not in own})

    def cards_next_to_piece(self, entity) -> list:
        """The cards on the cells next to a piece, each once, the piece itself left out."""
        stacks = self.stacks
        out = []
        for c in self.piece_neighbour_cells(entity):
            stack = stacks.get(c)
            if stack:
                out.extend(x for x in stack if x is not entity)
        return list(dict.fromkeys(out))

    def is_neighbour(self, a, b) -> bool:
        return b in self.neighbour_cells(a)

    def is_free(self, cell, moving=None) -> bool:
        """A cell of the board with no card on it (but `moving`)."""
        if not self.has_cell(cell):
            return False
        stack = self.stacks.get(cell)
        return not stack or (moving is not None and all(x is moving for x in stack))

    def remove(self, cell, entity) -> None:
        """A card taken from its cell; a piece is taken from all its cells."""
        if self.pieces:
            covered = self.pieces.pop(entity.id, None)
            if covered is not None:  # (no longer a piece: each cell below is a plain removal)
                for c in covered:
                    self.remove(c, entity)
                return
        if self._next_to:
            self._forget_next_to(cell)
        if self._near is not None:
            self._changed_near(cell)
        stack = self.stacks[cell]
        if self._owned is not None and stack[-1] is entity:  # the top card leaves: the one below shows
            self._top_owner_changed(cell, entity.owner, stack[-2].owner if len(stack) > 1 else None)
        stack.remove(entity)
        if not stack:
            if self.topology.open:
                if self._graph is not None:
                    self._graph.remove_node(cell)  # open boards only keep occupied cells
                del self.stacks[cell]
            if self._touch is not None:
                self._vacated(cell)
            if self._empty is not None:  # (never kept for an open board: see empty_cells)
                self._empty.add(cell)

    # ---- the frontier, kept incrementally: _touch[c] = how many occupied cells c is next to
    def _occupied(self, cell) -> None:
        touch, stacks = self._touch, self.stacks
        for other in self.neighbour_cells(cell):
            n = touch.get(other, 0) + 1
            touch[other] = n
            if n == 1 and not stacks.get(other):
                self._front.add(other)
        self._front.discard(cell)

    def _vacated(self, cell) -> None:
        touch, stacks = self._touch, self.stacks
        for other in self.neighbour_cells(cell):
            n = touch[other] - 1
            if n:
                touch[other] = n
            else:
                del touch[other]
                self._front.discard(other)
        if touch.get(cell) and not stacks.get(cell):
            self._front.add(cell)

    def neighbour_cells(self, cell) -> list:
        if self.topology.open:
            return self.topology.lattice_neighbours(cell)
        found = self._neighbour_table.get(cell)
        if found is None:
            if cell not in self._graph:
                return []
            # a fixed board's cells never change: each cell's sorted neighbours are computed once
            found = self._neighbour_table[cell] = sort_cells(self._graph.neighbors(cell))
        return found

    def cards_next_to(self, cell) -> list:
        """The cards on the occupied cells next to a cell, cell by cell in the order of
        neighbour_cells, each cell's stack bottom first: a list of its own."""
        return self.cards_next_to_view(cell)[:]

    def cards_next_to_view(self, cell) -> list:
        """cards_next_to without the copy, for a caller that only reads it: worked out once until a
        card comes or goes (which makes a new list; it never changes this one)."""
        found = self._next_to.get(cell)
        if found is not None:
            return found
        stacks = self.stacks
        out: list = []
        for c in self.neighbour_cells(cell):
            stack = stacks.get(c)
            if stack:
                out.extend(stack)
        if self.pieces and out:
            out = list(dict.fromkeys(out))  # a piece lying on two of those cells is one card
        self._next_to[cell] = out
        return out

    def _forget_next_to(self, cell) -> None:
        """A card came to or left a cell: only the lists of the cells next to it change (a board's
        cells are next to each other both ways)."""
        forget = self._next_to.pop
        for other in self.neighbour_cells(cell):
            forget(other, None)

    def near_version(self, cell) -> int:
        """A count that changes whenever a card comes to or leaves this cell or a cell next to it
        (from the first time it is asked for on this board)."""
        near = self._near
        if near is None:
            near = self._near = {}
        return near.get(cell, 0)

    def _changed_near(self, cell) -> None:
        near = self._near
        near[cell] = near.get(cell, 0) + 1
        for other in self.neighbour_cells(cell):
            near[other] = near.get(other, 0) + 1
        if self.pieces:  # a piece's neighbourhood is its cells' (its count is its first cell's)
            changed = {cell, *self.neighbour_cells(cell)}
            for covered in self.pieces.values():
                if covered[0] not in changed and not changed.isdisjoint(covered):
                    near[covered[0]] = near.get(covered[0], 0) + 1

    def empty_neighbour_cells(self, cell) -> list:
        return [c for c in self.neighbour_cells(cell) if not self.stack(c)]

    def cells(self) -> list:
        if self.topology.open:  # an open board's cells are its occupied ones
            return sort_cells(self.stacks)
        if self._sorted_cells is None:
            self._sorted_cells = sort_cells(self._graph.nodes)
        return list(self._sorted_cells)

    def empty_cells(self) -> list:
        """A fixed board's cells that hold no card, in order, kept once asked for (an open board's
        cells are its occupied ones: none is empty)."""
        if self.topology.open:
            return []
        if self._empty is None:
            stacks = self.stacks
            self._empty = _Sorted([c for c in self.cells() if not stacks.get(c)], members=False)
        return list(self._empty.cells)

    def ray(self, cell, dx: int, dy: int) -> list:
        """The cells from `cell` (not included) in the direction (dx, dy) to the edge, nearest first
        (kept with the topology while the board is the game's fixed one)."""
        rays = self.topology.ray_cache if self._shared else {}
        key = (cell, dx, dy)
        found = rays.get(key)
        if found is None:
            stacks = self.stacks
            walked = []
            x, y = cell[0] + dx, cell[1] + dy
            while (x, y) in stacks:
                walked.append((x, y))
                x, y = x + dx, y + dy
            found = rays[key] = tuple(walked)
        return list(found)

    def owned_by(self, seat: int) -> list:
        """The cells whose top card belongs to a seat, in cell order (a fixed board's kept: _owned_index)."""
        if self.topology.open:
            return sort_cells(self.owned_set(seat))
        found = self._owned_index().get(seat)
        return list(found.cells) if found is not None else []

    def owned_set(self, seat: int) -> set:
        """The cells of owned_by, as a set (to be read only): a walk through a player's cells asks it."""
        if self.topology.open:
            return {c for c, stack in self.stacks.items() if stack and stack[-1].owner == seat}
        found = self._owned_index().get(seat)
        return found.members if found is not None else set()

    def _owned_index(self) -> dict:
        """A fixed board's seats -> the cells whose top card each owns (a _Sorted): made once, then
        kept up to date as cards come and go and change owners (_top_owner_changed)."""
        if self._owned is None:
            stacks = self.stacks
            owned: dict = {}
            for c in self.cells():
                stack = stacks[c]
                if stack and stack[-1].owner is not None:
                    owned.setdefault(stack[-1].owner, []).append(c)
            self._owned = {seat: _Sorted(cells) for seat, cells in owned.items()}
        return self._owned

    def top_owner_changed(self, cell, entity, old_seat) -> None:
        """A card changed owners (from `old_seat`): if it is the top card of its cell, the cell
        changes owners too."""
        stack = self.stacks.get(cell)
        if self._owned is not None and stack and stack[-1] is entity:
            self._top_owner_changed(cell, old_seat, entity.owner)

    def _top_owner_changed(self, cell, old_seat, new_seat) -> None:
        if old_seat == new_seat:
            return
        groups = self._groups
        if groups is not None:
            if old_seat is not None:
                groups.pop(old_seat, None)  # its groups may split: made again when asked for
            if new_seat is not None and new_seat in groups:
                self._join(groups[new_seat], cell)
        if old_seat is not None:
            self._owned[old_seat].discard(cell)
        if new_seat is not None:
            found = self._owned.get(new_seat)
            if found is None:
                found = self._owned[new_seat] = _Sorted(())
            found.add(cell)

    # ---- a seat's groups of touching cells
    def owned_groups(self, seat: int) -> list:
        """regions(board, owned_cells(board, seat)). A fixed board's are found once, then kept up to
        date as cells come to the seat (_join), and found again after a cell leaves it."""
        if self.topology.open:
            return self.regions(self.owned_set(seat))
        groups = self._seat_groups(seat)
        found = sorted({id(g): g for g in groups.values()}.values(), key=attrgetter("first"))
        return [g.in_order() for g in found]

    def owned_group(self, seat: int, cell) -> list:
        """region(board, cell, owned_cells(board, seat)), from the groups owned_groups keeps."""
        if self.topology.open:
            return self.region(cell, self.owned_set(seat))
        group = self._seat_groups(seat).get(cell)
        return group.in_order() if group is not None else []

    def connected(self, start, members: set) -> set:
        """The cells of `members` connected to `start` through neighbouring cells of `members`."""
        neighbours = self.neighbour_cells
        # (a fixed board's neighbour table, for the cells asked so far, is looked at first)
        known = {} if self.topology.open else self._neighbour_table
        seen = {start}
        todo = [start]
        while todo:
            cell = todo.pop()
            around = known.get(cell)
            for other in around if around is not None else neighbours(cell):
                if other in members and other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    def region(self, cell, members: set) -> list:
        """The group of touching cells among `members` that holds `cell`, in cell order (or none)."""
        return sort_cells(self.connected(cell, members)) if cell in members else []

    def regions(self, members: set) -> list:
        """The groups of touching cells among `members`, each in cell order, by their first cells."""
        return [sort_cells(group) for _first, group in self._groups_among(sort_cells(members), members)]

    def _groups_among(self, ordered: list, members: set):
        """Each group of touching cells among `members` (as a set), with its first cell, in the order
        of `ordered` (the members in cell order)."""
        done: set = set()
        for cell in ordered:
            if cell not in done:
                group = self.connected(cell, members)
                done |= group
                yield cell, group

    def border_of(self, cells) -> list | None:
        """cells_around(board, cells) worked out before for this very list (a list is a value: it never
        changes), or None: the rules ask the border of the same kept group or def's value move after move."""
        borders = self._borders
        if borders is None or type(cells) is not list:
            return None
        found = borders.get(id(cells))
        return found[1] if found is not None and found[0] is cells else None

    def keep_border(self, cells, border: list) -> None:
        """Keep the border of a list of cells (border_of), with the list (so that its id stays its own)."""
        if type(cells) is not list:
            return
        borders = self._borders
        if borders is None or len(borders) >= BORDERS_KEPT:
            borders = self._borders = {}
        borders[id(cells)] = (cells, border)

    def _seat_groups(self, seat: int) -> dict:
        groups = self._groups
        if groups is None:
            groups = self._groups = {}
        found = groups.get(seat)
        if found is None:
            found = groups[seat] = {}
            for first, cells in self._groups_among(self.owned_by(seat), self.owned_set(seat)):
                group = _Group(cells, cell_sort_key(first))
                for c in cells:
                    found[c] = group
        return found

    def _join(self, groups: dict, cell) -> None:
        """A cell comes to a seat whose groups are kept: it joins the groups next to it into one."""
        near = []
        for other in self.neighbour_cells(cell):
            g = groups.get(other)
            if g is not None and g not in near:  # (a group is equal only to itself)
                near.append(g)
        key = cell_sort_key(cell)
        if not near:
            groups[cell] = _Group({cell}, key)
            return
        joined = near[0]
        if len(near) > 1:  # the largest takes the others' cells in
            for g in near:
                if len(g.cells) > len(joined.cells):
                    joined = g
            for g in near:
                if g is not joined:
                    joined.cells |= g.cells
                    for c in g.cells:
                        groups[c] = joined
                    if g.first < joined.first:
                        joined.first = g.first
        joined.cells.add(cell)
        groups[cell] = joined
        if key < joined.first:
            joined.first = key
        joined.ordered = None

    def occupied_cells(self) -> list:
        return sort_cells(c for c, stack in self.stacks.items() if stack)

    def frontier(self) -> list:
        """Empty cells next to an occupied cell, in cell order, kept once asked for (place and remove)."""
        if self._touch is None:
            touch: dict = {}
            for cell, stack in self.stacks.items():
                if stack:
                    for other in self.neighbour_cells(cell):
                        touch[other] = touch.get(other, 0) + 1
            stacks = self.stacks
            self._touch, self._front = touch, _Sorted(sort_cells(c for c in touch if not stacks.get(c)))
        return list(self._front.cells)

    def distance(self, a, b) -> int:
        kind = self.topology.kind
        return self.topology.distance(a, b, None if kind in ("grid", "hex") else self.graph)

    def in_place(self, cell, place) -> list:
        return [e for e in self.stack(cell) if e.place == place]

    def has_room(self, cell, place, moving=None) -> bool:
        """Whether one more card fits in a place of a cell (`moving`, already there, does not count)."""
        limit = self.topology.capacities.get(place)
        if limit is None:
            return True
        return sum(1 for e in self.stack(cell) if e.place == place and e is not moving) < limit


_EMPTY: list = []


class _Sorted:
    """Cells in cell order, kept so as cards come and go: the cells, their sort keys (to find a cell's
    place by bisection) and, unless `members` is False, the same cells as a set."""

    __slots__ = ("keys", "cells", "members")

    def __init__(self, cells, members: bool = True):
        self.cells = list(cells)  # (given in order)
        self.keys = [cell_sort_key(c) for c in self.cells]
        self.members = set(self.cells) if members else None

    def add(self, cell) -> None:
        key = cell_sort_key(cell)
        i = bisect_left(self.keys, key)
        self.keys.insert(i, key)
        self.cells.insert(i, cell)
        if self.members is not None:
            self.members.add(cell)

    def discard(self, cell) -> None:
        """Take the cell out, if it is there."""
        if self.members is not None and cell not in self.members:
            return
        i = bisect_left(self.keys, cell_sort_key(cell))
        if i < len(self.cells) and self.cells[i] == cell:
            del self.keys[i]
            del self.cells[i]
            if self.members is not None:
                self.members.discard(cell)

    def copy(self) -> "_Sorted":
        new = _Sorted.__new__(_Sorted)
        new.keys, new.cells = list(self.keys), list(self.cells)
        new.members = None if self.members is None else set(self.members)
        return new


BORDERS_KEPT = 512  # lists of cells whose border a board keeps (then it starts again)


class _Group:
    """One group of a seat's touching cells (BoardCells.owned_groups): its cells, its first cell's
    sort key, and its cells in order once asked for (a value: a group that grows makes a new list)."""

    __slots__ = ("cells", "first", "ordered")

    def __init__(self, cells: set, first):
        self.cells, self.first, self.ordered = cells, first, None

    def in_order(self) -> list:
        if self.ordered is None:
            self.ordered = sort_cells(self.cells)
        return self.ordered


def cell_sort_key(cell):
    """Cells in order: grid and hex cells by row then column, then numbered cells, then named ones."""
    if isinstance(cell, tuple):
        return (0, cell[1], cell[0])
    if isinstance(cell, int):
        return (1, cell, 0)
    return (2, str(cell), 0)


_ROW_THEN_COLUMN = itemgetter(1, 0)


def sort_cells(cells) -> list:
    """The cells in the order of cell_sort_key. Grid and hex cells (tuples, the usual case) are
    sorted by a key made in C, in the same order: a region or a board's cells sort twice as fast."""
    cells = list(cells)
    if len(cells) > 1 and set(map(type, cells)) == {tuple}:
        cells.sort(key=_ROW_THEN_COLUMN)
    else:
        cells.sort(key=cell_sort_key)
    return cells
