/** Public surface of the calendar module: epoch-day helpers and special-date calendars. */
export * from './days';
export * from './special-calendar';
