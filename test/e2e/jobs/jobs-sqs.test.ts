import { sqsHarness } from '../../support/queue';
import { jobsContract } from './jobs-contract';

jobsContract(sqsHarness);
