/**
 * What other modules may use of the incidents. The incidents tables of a view (`incidents`,
 * `incident_moves`) are this module's: other modules read them through these functions
 * (docs/architecture.md, Per-view tables).
 */
export { readIncidents } from './read';
export { hasIncidentsTable, movedTo } from './store';
