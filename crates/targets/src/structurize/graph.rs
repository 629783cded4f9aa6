//! Graph helpers shared by the structurizer and its checker: reverse post-order and immediate
//! dominators (Cooper, Harvey and Kennedy's iterative algorithm) over successor lists.

/// Nodes reachable from `entry` in reverse post-order.
pub(crate) fn reverse_postorder(succ: &[Vec<u32>], entry: u32) -> Vec<u32> {
    let n = succ.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(u32, usize)> = vec![(entry, 0)];
    seen[entry as usize] = true;
    while let Some((b, i)) = stack.pop() {
        if let Some(&s) = succ[b as usize].get(i) {
            stack.push((b, i + 1));
            if !seen[s as usize] {
                seen[s as usize] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}

/// Reverse post-order numbers (`u32::MAX` for unreachable nodes).
pub(crate) fn rpo_numbers(order: &[u32], n: usize) -> Vec<u32> {
    let mut num = vec![u32::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        num[b as usize] = i as u32;
    }
    num
}

/// Predecessor lists (duplicates removed).
pub(crate) fn predecessors(succ: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut preds = vec![Vec::new(); succ.len()];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            if !preds[s as usize].contains(&(b as u32)) {
                preds[s as usize].push(b as u32);
            }
        }
    }
    preds
}

/// Immediate dominators of the reachable nodes: `idom[entry] == entry`, `u32::MAX` for
/// unreachable nodes.
pub(crate) fn dominators(succ: &[Vec<u32>], entry: u32) -> Vec<u32> {
    let n = succ.len();
    let order = reverse_postorder(succ, entry);
    let num = rpo_numbers(&order, n);
    let preds = predecessors(succ);
    let mut idom = vec![u32::MAX; n];
    idom[entry as usize] = entry;
    let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
        while a != b {
            while num[a as usize] > num[b as usize] {
                a = idom[a as usize];
            }
            while num[b as usize] > num[a as usize] {
                b = idom[b as usize];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new = u32::MAX;
            for &p in &preds[b as usize] {
                if idom[p as usize] == u32::MAX {
                    continue;
                }
                new = if new == u32::MAX { p } else { intersect(&idom, p, new) };
            }
            if new != u32::MAX && idom[b as usize] != new {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    idom
}

/// The dominator tree with pre/post numbers, for constant-time dominance queries.
pub(crate) struct DomTree {
    /// Immediate dominators (see [`dominators`]).
    pub idom: Vec<u32>,
    /// Dominator-tree children.
    pub children: Vec<Vec<u32>>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomTree {
    /// Build the dominator tree of the nodes reachable from `entry`.
    pub fn new(succ: &[Vec<u32>], entry: u32) -> DomTree {
        let n = succ.len();
        let idom = dominators(succ, entry);
        let mut children = vec![Vec::new(); n];
        for (b, &d) in idom.iter().enumerate() {
            if d != u32::MAX && d != b as u32 {
                children[d as usize].push(b as u32);
            }
        }
        let (mut pre, mut post) = (vec![u32::MAX; n], vec![u32::MAX; n]);
        let mut clock = 0u32;
        let mut stack: Vec<(u32, usize)> = vec![(entry, 0)];
        pre[entry as usize] = clock;
        clock += 1;
        while let Some((b, i)) = stack.pop() {
            if let Some(&c) = children[b as usize].get(i) {
                stack.push((b, i + 1));
                pre[c as usize] = clock;
                clock += 1;
                stack.push((c, 0));
            } else {
                post[b as usize] = clock;
                clock += 1;
            }
        }
        DomTree { idom, children, pre, post }
    }
    /// Whether the node is reachable from the entry.
    pub fn reachable(&self, b: u32) -> bool {
        self.idom[b as usize] != u32::MAX
    }
    /// Whether `a` dominates `b` (false when either is unreachable).
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        self.reachable(a) && self.reachable(b) && self.pre[a as usize] <= self.pre[b as usize] && self.post[b as usize] <= self.post[a as usize]
    }
}
