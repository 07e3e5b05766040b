/** Every test file: keep the service's JSON log lines out of the test report unless they are errors. */
import { setLogLevel } from '../lib/shared/logger';

setLogLevel('error');
