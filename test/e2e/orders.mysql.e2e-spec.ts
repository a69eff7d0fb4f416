import { describeOrdersContract } from './orders-contract';

describeOrdersContract('mysql');
