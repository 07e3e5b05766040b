import { describe, expect, it } from 'vitest';
import { oracleTarget } from '../../../lib/connectors/conn-string/oracle';
import { SECRET, expectRefused, parse } from './conn-string-helpers';

const TNS =
  '(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db.example.com)(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=ORCLPDB1)))';

describe('an Oracle connection string', () => {
  it('with an Easy Connect Data Source passes it through to thin mode', () => {
    expect(parse('oracle', 'Data Source=dbhost:1521/ORCLPDB1;User Id=scott;Password=tiger')).toEqual({
      user: 'scott',
      password: 'tiger',
      connectString: 'dbhost:1521/ORCLPDB1',
    });
  });

  it.each([
    '//dbhost:1521/ORCLPDB1',
    'dbhost/ORCLPDB1',
    'tcps://db.example.com:2484/svc',
    'dbhost:1521/svc:dedicated/inst1',
    TNS,
  ])('passes the Data Source %s through unchanged', (ds) => {
    expect(parse('oracle', `Data Source=${ds};User Id=u;Password=p`).connectString).toBe(ds);
  });

  it('builds Easy Connect from Host, Port and Service Name', () => {
    expect(
      parse('oracle', 'Host=dbhost;Port=1522;Service Name=sales;User Id=u;Password=p').connectString,
    ).toBe('dbhost:1522/sales');
  });

  it('builds a descriptor for a SID, which Easy Connect cannot name', () => {
    expect(parse('oracle', 'Host=dbhost;SID=ORCL;User Id=u;Password=p').connectString).toBe(
      '(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=dbhost)(PORT=1521))(CONNECT_DATA=(SID=ORCL)))',
    );
  });

  it('uses tcps when Encrypt is set with Host', () => {
    expect(
      parse('oracle', 'Host=dbhost;Service Name=s;Encrypt=true;User Id=u;Password=p').connectString,
    ).toBe('tcps://dbhost:1521/s');
  });

  it('accepts Easy Connect in Server and maps the connection timeout, ignoring pool settings', () => {
    const c = parse(
      'oracle',
      'Server=dbhost:1521/svc;User Id=u;Password=p;Connection Timeout=20;Pooling=false;Min Pool Size=1;Statement Cache Size=50',
    );
    expect(c).toMatchObject({ connectString: 'dbhost:1521/svc', connectTimeout: 20 });
  });

  it('names host and port of any form for messages', () => {
    expect(oracleTarget(TNS)).toBe('db.example.com:1521');
    expect(oracleTarget('//dbhost:1522/x')).toBe('dbhost:1522');
    expect(oracleTarget('dbhost/x')).toBe('dbhost:1521');
  });

  it.each([
    [`User Id=u;Password=${SECRET}`, 'missing Data Source'],
    [`Data Source=ORCL;User Id=u;Password=${SECRET}`, "Data Source 'ORCL' looks like a TNS alias"],
    [`Data Source=dbhost:1521;User Id=u;Password=${SECRET}`, 'Data Source needs a service name'],
    [
      `Data Source=(DESCRIPTION=(ADDRESS=(HOST=h)(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=s));User Id=u;Password=${SECRET}`,
      'unbalanced parentheses',
    ],
    [
      `Data Source=(DESCRIPTION=(CONNECT_DATA=(SERVICE_NAME=s)));User Id=u;Password=${SECRET}`,
      'has no (HOST=…)',
    ],
    [`Data Source=h:abc/svc;User Id=u;Password=${SECRET}`, "Data Source port 'abc' is not a number"],
    [`Host=h;User Id=u;Password=${SECRET}`, 'missing Service Name (or SID)'],
    [
      `Data Source=h:1521/s;Port=1522;User Id=u;Password=${SECRET}`,
      'Port cannot be combined with a full Data Source',
    ],
    [
      `Data Source=h:1521/s;User Id=u;Password=${SECRET};DBA Privilege=SYSDBA`,
      'DBA Privilege is not supported',
    ],
    [`Data Source=h:1521/s;Password=${SECRET}`, 'missing User Id'],
    ['Data Source=h:1521/s;User Id=u', 'missing Password'],
    [
      `Data Source=h:1521/s;User Id=u;Password=${SECRET};Data Source=x:1/y;Host=z`,
      'either Data Source or Host',
    ],
  ])('%s is refused with "%s"', (text, message) => {
    expectRefused('oracle', text, message);
  });
});
