// mssql and oracledb ship no type declarations; the adapters describe the little they use themselves.
declare module 'mssql';
declare module 'oracledb';
