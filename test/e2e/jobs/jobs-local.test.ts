import { localHarness } from '../../support/queue';
import { jobsContract } from './jobs-contract';

jobsContract(localHarness);
