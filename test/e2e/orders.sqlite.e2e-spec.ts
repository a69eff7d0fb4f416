import { describeOrdersContract } from './orders-contract';

describeOrdersContract('sqlite');
