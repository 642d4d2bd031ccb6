// The selected message's decoded tree: names, values and named codes; expand/collapse (all); copy
// value, copy as filter, apply as filter, apply as column. Selecting a node highlights its bytes in the
// hex view; keyboard: arrows move and open/close nodes.

import { useEffect, useMemo, useRef } from 'react'
import type { TreeNode } from '../../../src-shared/api'
import { filterLiteral } from '../format'
import { nodeAt, useInspector } from '../state/store'

const CHILD_LIMIT = 500

function filterFor(node: TreeNode): string {
  const lit = filterLiteral(node.value, node.type)
  return lit ? `${node.key} == ${lit}` : node.key
}

function copy(text: string): void {
  void navigator.clipboard?.writeText(text).then(
    () => useInspector.getState().notify('info', 'Copied to the clipboard'),
    () => useInspector.getState().notify('error', 'The clipboard is not available')
  )
}

/** Visible nodes in display order (for keyboard navigation). */
function visiblePaths(tree: TreeNode[], expanded: Record<string, boolean>): string[] {
  const out: string[] = []
  const walk = (nodes: TreeNode[], prefix: string) => {
    nodes.slice(0, CHILD_LIMIT).forEach((n, i) => {
      const p = prefix ? `${prefix}/${i}` : String(i)
      out.push(p)
      if (n.children.length && expanded[p]) walk(n.children, p)
    })
  }
  walk(tree, '')
  return out
}

function Node({ node, path, depth }: { node: TreeNode; path: string; depth: number }) {
  const open = useInspector((s) => !!s.expanded[path])
  const selected = useInspector((s) => s.selectedNode === path)
  const { selectNode, toggleNode } = useInspector.getState()
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (selected) ref.current?.scrollIntoView({ block: 'nearest' })
  }, [selected])
  const hasChildren = node.children.length > 0
  const colon = node.label.indexOf(': ')
  return (
    <>
      <div
        ref={ref}
        role="treeitem"
        aria-expanded={hasChildren ? open : undefined}
        aria-selected={selected}
        data-testid="tree-node"
        data-path={path}
        data-key={node.key}
        data-selected={selected ? 'true' : 'false'}
        className={`tree-node ${selected ? 'selected' : ''} ${node.source === undefined ? 'no-bytes' : ''}`}
        style={{ paddingLeft: 6 + depth * 16 }}
        onClick={() => selectNode(path)}
        onDoubleClick={() => hasChildren && toggleNode(path)}
        title={
          node.source !== undefined ? `${node.key} · bytes ${node.start}–${(node.start ?? 0) + (node.length ?? 0) - 1} of source ${node.source}` : node.key
        }
      >
        <span
          className={`twisty ${hasChildren ? (open ? 'open' : 'closed') : 'leaf'}`}
          onClick={(e) => {
            e.stopPropagation()
            if (hasChildren) toggleNode(path)
          }}
        />
        {colon > 0 ? (
          <span className="label">
            <span className="label-name">{node.label.slice(0, colon)}</span>
            <span className="label-sep">: </span>
            <span className="label-value">{node.label.slice(colon + 2)}</span>
          </span>
        ) : (
          <span className="label label-name">{node.label}</span>
        )}
        <span className="node-key">{node.key}</span>
      </div>
      {hasChildren && open && node.children.slice(0, CHILD_LIMIT).map((c, i) => <Node key={i} node={c} path={`${path}/${i}`} depth={depth + 1} />)}
      {hasChildren && open && node.children.length > CHILD_LIMIT && (
        <div className="tree-more muted" style={{ paddingLeft: 22 + (depth + 1) * 16 }}>
          … {node.children.length - CHILD_LIMIT} more (see the JSON view)
        </div>
      )}
    </>
  )
}

export function DetailTree() {
  const detail = useInspector((s) => s.detail)
  const detailError = useInspector((s) => s.detailError)
  const selectedId = useInspector((s) => s.selectedId)
  const selectedNode = useInspector((s) => s.selectedNode)
  const expanded = useInspector((s) => s.expanded)
  const { expandAll, selectNode, toggleNode, applyFilter, addColumn } = useInspector.getState()
  const node = detail ? nodeAt(detail.tree, selectedNode) : undefined
  const paths = useMemo(() => (detail ? visiblePaths(detail.tree, expanded) : []), [detail, expanded])

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (!detail) return
    const i = selectedNode ? paths.indexOf(selectedNode) : -1
    const n = nodeAt(detail.tree, selectedNode)
    const act: Record<string, () => void> = {
      ArrowDown: () => selectNode(paths[Math.min(paths.length - 1, i + 1)] ?? null),
      ArrowUp: () => selectNode(paths[Math.max(0, i - 1)] ?? null),
      ArrowRight: () => selectedNode && n?.children.length && toggleNode(selectedNode, true),
      ArrowLeft: () => {
        if (!selectedNode) return
        if (n?.children.length && expanded[selectedNode]) toggleNode(selectedNode, false)
        else if (selectedNode.includes('/')) selectNode(selectedNode.slice(0, selectedNode.lastIndexOf('/')))
      }
    }
    if (act[e.key]) {
      e.preventDefault()
      act[e.key]()
    }
  }

  if (selectedId === null) {
    return (
      <div className="detail-tree" data-testid="detail-tree">
        <div className="empty-state small">
          <strong>No message selected</strong>
          <p>Pick a row in the timeline to see its decoded fields.</p>
        </div>
      </div>
    )
  }
  return (
    <div className="detail-tree" data-testid="detail-tree" data-message={detail?.id ?? ''}>
      <div className="panel-toolbar">
        {detail && (
          <span className="detail-title" title={detail.summary}>
            <strong>#{detail.id}</strong> {detail.name}
            <span className="muted">
              {' '}
              · {detail.stack.join(' / ')} · frames {detail.frames.length > 6 ? `${detail.frames.slice(0, 6).join(', ')}…` : detail.frames.join(', ')}
            </span>
          </span>
        )}
        <button
          type="button"
          className="button small"
          disabled={!node || node.value === undefined}
          onClick={() => node && copy(String(node.value))}
          title="Copy value"
        >
          Copy
        </button>
        <button type="button" className="button small" disabled={!node} onClick={() => node && copy(filterFor(node))} title="Copy as filter expression">
          Copy filter
        </button>
        <button
          type="button"
          className="button small"
          disabled={!node}
          onClick={() => node && void applyFilter(filterFor(node))}
          title="Apply as filter: show only messages with this value"
        >
          Filter
        </button>
        <button
          type="button"
          className="button small"
          disabled={!node?.key.includes('.')}
          onClick={() => node && addColumn(node.key)}
          title="Apply as column: show this field in the timeline"
        >
          Column
        </button>
        <button type="button" className="icon-button" title="Expand all" onClick={() => expandAll(true)}>
          ⊞
        </button>
        <button type="button" className="icon-button" title="Collapse all" onClick={() => expandAll(false)}>
          ⊟
        </button>
      </div>
      {detail?.error && (
        <div className="banner error" role="alert">
          {detail.error}
        </div>
      )}
      {detail && detail.warnings.length > 0 && <div className="banner warning">{detail.warnings.join(' · ')}</div>}
      {detailError && <div className="banner error">{detailError}</div>}
      <div className="tree-body" role="tree" tabIndex={0} onKeyDown={onKeyDown}>
        {detail
          ? detail.tree.map((n, i) => <Node key={`${detail.id}-${i}`} node={n} path={String(i)} depth={0} />)
          : !detailError && <div className="spinner" />}
      </div>
    </div>
  )
}
